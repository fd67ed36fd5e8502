// Entity tags of read answers, and the comparison of If-None-Match (docs/decisions.md#conditional-requests).
// A tag names one answer's bytes: it is a hash of everything the answer depends on, which is the request (door,
// target, media type, content coding), who asks (key, tenant, permissions, and for a key that reveals secrets
// the secrets keys this process holds), the tenant's data version, and the build. The data version is read
// before the data (on the same database), so a tag is never newer than the answer it is sent with: a change
// committed in between only costs one more full answer.
import type { Principal } from '../modules/tenancy/authenticate.ts';
import { BREAK, visit, type DocumentNode } from 'graphql';
import type { TenantDataVersions } from '../modules/tenancy/data-version/tenant-data-version.ts';
import { LOG_LINE_FIELDS } from '../modules/revisions/lifecycle/revision-logs.ts';
import { ARCHIVE_URL_FIELDS, downloadWindowOf } from '../modules/storage/source-archives.ts';
import { buildFingerprint } from './build-fingerprint.ts';
import { answerReader, deploymentTag, tagHash } from '../modules/deployments/deployment-tag.ts';

/** Every use revalidates; only the caller's own cache may keep it (the answer is the key's). */
export const CACHE_CONTROL = 'private, no-cache';
/** The request headers a read answer depends on: the key (either header), the tenant, the media type, the coding. */
export const VARY = 'Authorization, X-Api-Key, X-Tenant-Id, Accept, Accept-Encoding';

/** What a read answer depends on besides its caller and the data: filled by the operation runner for a GET or HEAD. */
export class Revalidation {
  /** The answer's tag, once the data version is read; undefined when it gets none (its result had errors). */
  etag: string | undefined;
  /** Whether the request's If-None-Match names the tag: the answer is 304, and the operation did not run. */
  notModified = false;
  /**
   * The answer is one deployment's representation (`GET /v2/deployments/{id}`): its tag is the deployment's
   * own (deploymentTag), made of the deployment's version, which is read instead of the tenant's.
   */
  deploymentId: string | undefined;
  /** The whole ETag of a deployment's representation, in the answer's coding (`etag` is its hash). */
  deploymentEtag: string | undefined;

  /** The door, the target (path and query), the media type and the content coding, as one string. */
  readonly request: string;
  /** The request's If-None-Match, if any. */
  readonly ifNoneMatch: string | undefined;
  /** The content coding the answer will be sent in (`identity` for none). */
  readonly coding: string;

  constructor(request: string, ifNoneMatch: string | undefined, coding = 'identity') {
    this.request = request;
    this.ifNoneMatch = ifNoneMatch;
    this.coding = coding;
  }

  /**
   * Sets the tag of the answer `principal` gets to `document` at the tenant's `versions`; whether the request
   * already holds it. Log lines count only for a document that selects them.
   */
  tag(principal: Principal, document: DocumentNode, versions: TenantDataVersions, secretsKeys: readonly string[]): boolean {
    const selects = selectionOf(document);
    let version = selects.logLines ? `${versions.data} ${versions.logs}` : `${versions.data}`;
    // A signed download URL changes with its time window, not with the data.
    if (selects.archiveUrls) version += ` window ${downloadWindowOf()}`;
    this.etag = tagHash(`${buildFingerprint()}\n${answerReader(principal, secretsKeys)}\n${version}\n${this.request}`);
    this.notModified = this.ifNoneMatch !== undefined && namesTag(this.ifNoneMatch, this.etag);
    return this.notModified;
  }

  /** The same for a deployment's representation at `version`: the tag every answer carrying it carries. */
  tagDeployment(principal: Principal, version: number, secretsKeys: readonly string[]): boolean {
    this.deploymentEtag = inCoding(deploymentTag(this.deploymentId!, version, principal, secretsKeys), this.coding);
    this.etag = this.deploymentEtag.slice(this.deploymentEtag.lastIndexOf('-') + 1, -1);
    this.notModified = this.ifNoneMatch !== undefined && namesTag(this.ifNoneMatch, this.etag);
    return this.notModified;
  }
}

/**
 * A tag as an answer sent in `coding` carries it: other bytes, so another strong tag (RFC 9110 §8.8.3.3), of
 * the same form (its hash made again with the coding).
 */
export function inCoding(tag: string, coding: string): string {
  const dash = tag.lastIndexOf('-');
  if (coding === 'identity' || dash < 0 || !tag.endsWith('"')) return tag;
  return `${tag.slice(0, dash)}-${tagHash(`${tag.slice(dash + 1, -1)} ${coding}`)}"`;
}

/** What of a document's selection moves its answer besides the tenant's data version. */
interface VersionedSelection {
  /** Revision log lines, which only their own version moves. */
  logLines: boolean;
  /** Source archives' download URLs, which change with their time window. */
  archiveUrls: boolean;
}

const selections = new WeakMap<DocumentNode, VersionedSelection>();

/**
 * Whether a document selects, anywhere (a fragment's too), revision log lines, which only their own version
 * moves (a data plane appends them many times a second during a build, and every other answer keeps its tag
 * meanwhile), or download URLs, which change every DOWNLOAD_WINDOW_MS. Documents are parsed once and kept (a
 * route's at start), so each is visited once.
 */
function selectionOf(document: DocumentNode): VersionedSelection {
  let selection = selections.get(document);
  if (selection === undefined) {
    const found: VersionedSelection = { logLines: false, archiveUrls: false };
    visit(document, {
      Field(node) {
        found.logLines ||= LOG_LINE_FIELDS.has(node.name.value);
        found.archiveUrls ||= ARCHIVE_URL_FIELDS.has(node.name.value);
        return found.logLines && found.archiveUrls ? BREAK : undefined;
      },
    });
    selection = found;
    selections.set(document, selection);
  }
  return selection;
}

/**
 * Whether an If-None-Match field value names `tag` (RFC 9110 §13.1.2, weak comparison: `W/` is ignored). Each
 * entity tag is compared by what follows its last `-`, the hash: a single deployment's tag begins with its
 * version for If-Match (`"7-masked-<hash>"`), which the hash already determines. `*` is left to the answer: it
 * names any current one, which only running the operation tells (answer.ts).
 */
export function namesTag(ifNoneMatch: string, tag: string): boolean {
  for (const listed of ifNoneMatch.split(',')) {
    const value = listed.trim().replace(/^W\//, '');
    if (value.length >= tag.length + 2 && value.startsWith('"') && value.endsWith('"') && value.slice(-1 - tag.length, -1) === tag) {
      const before = value.length - 2 - tag.length;
      if (before === 0 || value[before] === '-') return true;
    }
  }
  return false;
}

/** The ETag header: the hash quoted, after the answer's own tag where it has one (a deployment's `"7"`). */
export function etagHeader(tag: string, ownTag: string | undefined): string {
  return ownTag && /^"[^"]*"$/.test(ownTag) ? `"${ownTag.slice(1, -1)}-${tag}"` : `"${tag}"`;
}
