// Deployments with many revisions, imported on top of the shared fixture by the revision tests: ACME's
// `history-app` has 25 revisions, in pairs created at the same instant (ties broken by id), every status,
// both remote-reconciled states, and every third one written in the older import format (id, status,
// created_at only); GLOBEX has a deployment of its own with revisions. The legacy records these must come
// back as are written from docs/legacy-api.md#revision-record and the defaults of docs/decisions.md#revisions,
// never read from the service.
import { ACME, GLOBEX } from './fixtures.ts';
import type { Doc } from './graphql-expect.ts';

export const HISTORY_APP = 'aaaaaaaa-1000-4000-8000-000000000001';
export const QUIET_APP = 'aaaaaaaa-1000-4000-8000-000000000002';
export const GLOBEX_APP = 'bbbbbbbb-1000-4000-8000-000000000001';
export const GLOBEX_APP_REVISIONS = ['bbbbbbbb-2000-4000-8000-000000000001', 'bbbbbbbb-2000-4000-8000-000000000002'];

export const STATUSES = ['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'CREATE_FAILED',
  'BUILD_FAILED', 'DEPLOY_FAILED', 'DEPLOYED', 'SKIPPED', 'INTERRUPTED', 'UNKNOWN'];

const HISTORY_CONFIG = { repo_ref: null, graph_config_path: null, image_uri: 'registry.example.com/acme/history:7', source_tarball_path: null, repo_commit_sha: null };

export interface DocRevision {
  id: string;
  created_at: string;
  updated_at?: string;
  status: string;
  source?: string;
  source_revision_config?: Record<string, string | null> | null;
  remote_reconciled?: boolean;
}

/** Revision n of history-app: ids increase with n, pairs (0,1), (2,3) … share their creation instant. */
function historyRevision(n: number): DocRevision {
  const id = `aaaaaaaa-2000-4000-8000-${String(n).padStart(12, '0')}`;
  const created_at = new Date(Date.UTC(2026, 3, 1, 8, Math.floor(n / 2))).toISOString();
  const status = STATUSES[n % STATUSES.length]!;
  if (n % 3 === 0) return { id, status, created_at };
  return {
    id, created_at, status,
    updated_at: new Date(Date.parse(created_at) + 30_000 + n).toISOString(),
    source: n % 2 === 0 ? 'external_docker' : 'internal_docker',
    source_revision_config: { ...HISTORY_CONFIG, image_uri: `registry.example.com/acme/history:${n}` },
    remote_reconciled: n % 4 === 1,
  };
}

export const HISTORY_REVISIONS: DocRevision[] = Array.from({ length: 25 }, (_, n) => historyRevision(n));

const deployment = (id: string, tenant: string, name: string, source: string, revisions: DocRevision[]) => ({
  name, source_config: { deployment_type: 'dev' }, id, tenant_id: tenant,
  created_at: '2026-04-01T00:00:00Z', updated_at: '2026-04-02T00:00:00Z',
  latest_revision_id: revisions.at(-1)?.id ?? null, active_revision_id: revisions[0]?.id ?? null,
  status: 'READY', source, revisions,
});

export const REVISIONS_DOCUMENT: Doc = {
  deployments: [
    deployment(HISTORY_APP, ACME, 'history-app', 'internal_docker', HISTORY_REVISIONS),
    deployment(QUIET_APP, ACME, 'quiet-app', 'internal_source', []),
    deployment(GLOBEX_APP, GLOBEX, 'globex-app', 'github', [
      { id: GLOBEX_APP_REVISIONS[0]!, status: 'DEPLOYED', created_at: '2026-04-03T00:00:00Z' },
      { id: GLOBEX_APP_REVISIONS[1]!, status: 'BUILDING', created_at: '2026-04-04T00:00:00Z', remote_reconciled: true },
    ]),
  ],
};

const NO_CONFIG = { repo_ref: null, graph_config_path: null, image_uri: null, source_tarball_path: null, repo_commit_sha: null };

/**
 * The legacy record of a document's revision (docs/legacy-api.md#revision-record), with the defaults of
 * docs/decisions.md#revisions for what an older document leaves out; `deploymentSource` is its deployment's.
 */
export function legacyRevision(revision: DocRevision, deploymentSource: string) {
  const iso = (text: string) => new Date(text).toISOString();
  return {
    id: revision.id,
    created_at: iso(revision.created_at),
    updated_at: iso(revision.updated_at ?? revision.created_at),
    status: revision.status,
    source: revision.source ?? deploymentSource,
    source_revision_config: { ...NO_CONFIG, ...revision.source_revision_config },
  };
}

/** Newest first: created_at descending, then id descending. */
export const newestFirst = (a: DocRevision, b: DocRevision) =>
  Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** history-app's revisions as GET /v2/deployments/{id}/revisions lists them, for a filter. */
export function expectedHistory(filter: { statuses?: string[]; remoteReconciled?: boolean } = {}) {
  return HISTORY_REVISIONS
    .filter((r) => !filter.statuses || filter.statuses.includes(r.status))
    .filter((r) => filter.remoteReconciled === undefined || (r.remote_reconciled ?? false) === filter.remoteReconciled)
    .sort(newestFirst)
    .map((r) => legacyRevision(r, 'internal_docker'));
}
