// Source archives of `internal_source` builds (docs/decisions.md#source-archives): a deployment's writer asks for
// an upload URL, PUTs the archive to it, and names the object path it got in a PATCH; a data plane that claims
// the revision downloads the archive through a URL of its own. The rules, in one place:
//   - a path is accepted only if this service issued it for that deployment of that tenant, it has not expired
//     unused, and the object is there within the size limit (`claim`);
//   - issued URLs expire; an upload no PATCH used is removed after `unusedSeconds`, and a deleted deployment's
//     objects with it (source-archive-sweep.ts);
//   - download URLs are the same within a time window, so that a read showing one keeps its entity tag.
import { randomUUID } from 'node:crypto';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { TenantSchema } from '../tenancy/tenant.entity.ts';
import { DeploymentSchema } from '../deployments/deployment.entity.ts';
import type { DeploymentSource } from '../deployments/deployment-enums.ts';
import { DeploymentNotFound, WriteRefusal } from '../deployments/writes/write-problems.ts';
import { isObjectPath, type ObjectStore } from './object-store.ts';
import { SourceUploadSchema, type SourceUpload } from './source-upload.entity.ts';

/** The CLI's own limit (it refuses larger archives, and sends `X-Goog-Content-Length-Range: 0,209715200`). */
export const SOURCE_ARCHIVE_MAX_BYTES = 200 * 1024 * 1024;
/** A download URL is the same throughout a window of this length, and valid until the end of the next one. */
export const DOWNLOAD_WINDOW_MS = 30 * 60 * 1000;

/** Where the paths this service issues start (imported revisions carry the original's paths, which it does not have). */
const ISSUED_PREFIX = 'sources/';

export interface SourceArchiveLimits {
  /** How long an upload URL may be used (the CLI PUTs at once). */
  uploadUrlSeconds: number;
  /** How long an issued path may wait for the PATCH naming it; then it is removed unused. More than the URL's life. */
  unusedSeconds: number;
  maxBytes: number;
}

export const DEFAULT_SOURCE_ARCHIVE_LIMITS: SourceArchiveLimits = { uploadUrlSeconds: 15 * 60, unusedSeconds: 60 * 60, maxBytes: SOURCE_ARCHIVE_MAX_BYTES };

export interface IssuedUpload {
  uploadUrl: string;
  objectPath: string;
  /** When the upload URL stops working. */
  expiresAt: Date;
  maxBytes: number;
}

/**
 * The sources whose deployments may upload an archive: `internal_source`, and `internal_docker`, which may build
 * a revision from `internal_source` (a CLI's remote build of an app it also builds locally; docs/decisions.md#writes, 11).
 */
export const UPLOADING_SOURCES: readonly DeploymentSource[] = ['internal_source', 'internal_docker'];

/** The deployment's source builds from no archive (REST 400, as push-token's refusal of the other sources). */
export class SourceUploadsUnavailable extends WriteRefusal {
  constructor() {
    super(`Upload URLs are only available for ${UPLOADING_SOURCES.map((source) => `'${source}'`).join(' and ')} source deployments.`);
  }
}

/** Why a named path is refused, as the writer reports it (a 422 at `source_revision_config.source_tarball_path`). */
export type PathProblem = string;

export class SourceArchives {
  readonly store: ObjectStore;
  readonly limits: SourceArchiveLimits;

  constructor(store: ObjectStore, limits: Partial<SourceArchiveLimits> = {}) {
    this.store = store;
    this.limits = { ...DEFAULT_SOURCE_ARCHIVE_LIMITS, ...limits };
    if (this.limits.unusedSeconds <= this.limits.uploadUrlSeconds) throw new Error('unusedSeconds must be longer than uploadUrlSeconds');
  }

  /**
   * A new object path for the tenant's deployment `deploymentId`, recorded in one transaction of `em` (scoped to
   * the tenant), and its upload URL. DeploymentNotFound for another tenant's as for an unknown one.
   */
  async issue(em: EntityManager, tenantId: string, deploymentId: string, now = new Date()): Promise<IssuedUpload> {
    return em.transactional(async (tx) => {
      const deployment = await tx.findOne(DeploymentSchema, { tenant: tenantId, id: deploymentId.toLowerCase() }, { fields: ['id', 'source'] });
      if (!deployment) throw new DeploymentNotFound(deploymentId);
      if (!UPLOADING_SOURCES.includes(deployment.source)) throw new SourceUploadsUnavailable();
      return this.#record(tx, tenantId, deployment.id, now);
    });
  }

  async #record(tx: EntityManager, tenantId: string, deploymentId: string, now: Date): Promise<IssuedUpload> {
    const { uploadUrlSeconds, unusedSeconds, maxBytes } = this.limits;
    const objectPath = `${ISSUED_PREFIX}${tenantId}/${deploymentId}/${randomUUID()}.tar.gz`;
    const expiresAt = new Date(now.getTime() + uploadUrlSeconds * 1000);
    tx.create(SourceUploadSchema, {
      tenant: tx.getReference(TenantSchema, tenantId), deploymentId, objectPath, createdAt: now, urlExpiresAt: expiresAt,
      expiresAt: new Date(now.getTime() + unusedSeconds * 1000), usedByRevisionId: null,
    } as never);
    return { uploadUrl: await this.store.uploadUrl(objectPath, { issuedAt: now, expiresAt, maxBytes }), objectPath, expiresAt, maxBytes };
  }

  /**
   * The upload record a PATCH of the deployment may build from, locked for the rest of `tx` (a sweep skips it),
   * or why not. Another tenant's or another deployment's path is refused as one never issued.
   */
  async claim(tx: EntityManager, tenantId: string, deploymentId: string, objectPath: string, now = new Date()): Promise<SourceUpload | PathProblem> {
    const upload = isObjectPath(objectPath)
      ? await tx.findOne(SourceUploadSchema, { tenant: tenantId, deploymentId, objectPath }, { lockMode: LockMode.PESSIMISTIC_WRITE })
      : null;
    if (!upload) {
      return `source_tarball_path must be an object_path issued for this deployment by POST /v2/deployments/${deploymentId}/upload-url; arbitrary paths are not accepted`;
    }
    if (upload.usedByRevisionId === null && upload.expiresAt <= now) {
      return `the upload ${objectPath} was not used before it expired at ${upload.expiresAt.toISOString()}: ask for a new upload URL`;
    }
    const size = await this.store.sizeOf(objectPath);
    if (size === undefined) return `nothing was uploaded to ${objectPath}: PUT the archive to its upload_url first`;
    if (size > this.limits.maxBytes) return `the archive at ${objectPath} is ${size} bytes, more than the limit of ${this.limits.maxBytes}`;
    return upload;
  }

  /**
   * A URL that downloads the archive at `objectPath`, the same throughout a window of DOWNLOAD_WINDOW_MS and
   * valid until the end of the next one; null for a path this service would not have issued (an imported one).
   */
  async downloadUrl(objectPath: string, now = Date.now()): Promise<string | null> {
    if (!objectPath.startsWith(ISSUED_PREFIX) || !isObjectPath(objectPath)) return null;
    const start = downloadWindowOf(now) * DOWNLOAD_WINDOW_MS;
    return this.store.downloadUrl(objectPath, { issuedAt: new Date(start), expiresAt: new Date(start + 2 * DOWNLOAD_WINDOW_MS) });
  }
}

/** The fields that show download URLs: the entity tags of reads selecting them include the window (runner/entity-tags.ts). */
export const ARCHIVE_URL_FIELDS: ReadonlySet<string> = new Set(['sourceArchiveUrl']);

/** The number of the download window `now` falls in: entity tags of answers that show download URLs include it. */
export const downloadWindowOf = (now = Date.now()): number => Math.floor(now / DOWNLOAD_WINDOW_MS);
