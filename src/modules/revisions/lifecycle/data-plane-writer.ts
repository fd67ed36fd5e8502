// What data planes do (docs/decisions.md#revision-lifecycle): claim queued revisions, report their progress
// and append their log lines, and report a deployment's status. Each is one transaction on the primary. The
// statements are hand-written: a claim reads several tenants' queues at once, so every one of them names the
// tenants the key acts for itself (`tenant_id = any(?)`). Locks are taken in the order the deployment writes
// take them: deployment (a status report may change it), then revision, then lease.
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { DeploymentStatus, RevisionStatus } from '../../deployments/deployment-enums.ts';
import { DeploymentSchema } from '../../deployments/deployment.entity.ts';
import { DeploymentNotFound, RevisionNotFound } from '../../deployments/writes/write-problems.ts';
import { ACROSS_TENANTS } from '../../common/tenant-scope.ts';
import { timestampFromText } from '../../common/lean-rows.ts';
import { IN_PROGRESS, isFinal, mayReport } from './revision-lifecycle.ts';
import { InvalidTransition, LeaseLost, LogLineLimit, LogLinesOutOfOrder, RevisionEnded, RevisionNotRunning } from './lifecycle-problems.ts';
import { REVISION_LOG_CHANNEL } from './revision-log-notifications.ts';
import { inOneTransaction as inTransaction } from '../../common/one-transaction.ts';
import { revisionOfListener, workOfListener } from '../../listeners/listener-work.ts';
import type { LogPhase } from './revision-log-line.entity.ts';

export interface DataPlaneScope {
  /** The primary's EntityManager (unscoped: every statement here names its tenants). */
  em: EntityManager;
  /** The tenants the key acts for. */
  tenantIds: readonly string[];
  apiKeyId: string;
  /**
   * The listener the key is bound to: its data plane claims and reports on that listener's deployments only;
   * null: on the deployments on no listener (modules/listeners/listener-work.ts).
   */
  listenerId: string | null;
  /** How long a claim or a report keeps the lease. */
  leaseSeconds: number;
  /** Runs once each write has committed, before its answer (read your writes with replicas). */
  afterCommit?: () => Promise<void>;
}

/** Most revisions one claim takes, and most lines one append carries. */
export const MAX_CLAIM = 100;
export const MAX_LOG_LINES = 1_000;
/** Most build and deploy log lines a revision keeps, both phases together (why this many: docs/decisions.md#revision-lifecycle). */
export const MAX_REVISION_LOG_LINES = 10_000;
/** Runtime log lines a revision keeps: the newest ones, older ones deleted as new ones come (docs/decisions.md#runtime-logs). */
export const MAX_RUNTIME_LOG_LINES = 10_000;
/** Longest log line kept whole; a longer one is cut there (and says so). */
export const MAX_LOG_LINE_CHARS = 16_384;

const IN_PROGRESS_SQL = IN_PROGRESS.map((status) => `'${status}'`).join(', ');

export interface RevisionClaim {
  revisionId: string;
  deploymentId: string;
  tenantId: string;
  leaseId: string;
  expiresAt: Date;
  /** The archive an `internal_source` revision builds from (its object path); null for other sources. */
  sourceTarballPath: string | null;
  /** The image a revision deploys (`image_uri`); null when it names none. */
  imageUri: string | null;
}

/**
 * Up to `limit` queued revisions, oldest first, each now AWAITING_BUILD under a lease of this data plane's. A
 * revision is taken by one claim only (others skip the rows a claim has locked), and never while a data plane
 * holds another revision of its deployment: a deployment rolls out one revision at a time. (A revision imported
 * in progress has no lease here: nobody in this service holds it, and it holds nothing back.) Of a deployment's
 * queued revisions (an import may leave several) only the oldest is a candidate, so one claim, or two at once,
 * never take two of them.
 */
export async function claimRevisions(scope: DataPlaneScope, limit: number): Promise<RevisionClaim[]> {
  // Each tenant's queue is read in its index's order, up to the limit, and the oldest of those are taken: one
  // scan of every tenant's queue in time order passed over each other tenant's revisions queued earlier (7-9 ms
  // a claim behind 15,000 of them: bench/results/2026-11-27-lifecycle.md).
  const ofListener = revisionOfListener(scope.listenerId, 'r');
  return inTransaction(scope, async (tx) => {
    const rows = await tx.execute<{ id: string; tenant_id: string; deployment_id: string; lease_id: string; expires_at: Date; source_tarball_path: string | null; image_uri: string | null }[]>(
      `with candidate as (
         select c.id from unnest(?::uuid[]) as t(tenant_id)
         cross join lateral (
           select r.id, r.created_at from revision r
           where r.tenant_id = t.tenant_id and r.status = 'QUEUED' and ${ofListener.sql}
             and not exists (
               select 1 from revision o join revision_lease l on l.revision_id = o.id
               where o.deployment_id = r.deployment_id and o.status in (${IN_PROGRESS_SQL}) and l.expires_at is not null
             )
             and not exists (select 1 from revision q where q.deployment_id = r.deployment_id and q.status = 'QUEUED' and (q.created_at, q.id) < (r.created_at, r.id))
           order by r.created_at, r.id
           limit ?
           for update of r skip locked
         ) as c
         order by c.created_at, c.id
         limit ?
       ), claimed as (
         update revision r set status = 'AWAITING_BUILD', status_message = null, updated_at = now()
         from candidate c where r.id = c.id
         returning r.id, r.tenant_id, r.deployment_id, r.created_at,
           case when r.source = 'internal_source' then r.source_revision_config->>'source_tarball_path' end as source_tarball_path,
           r.source_revision_config->>'image_uri' as image_uri
       )
       , leased as (
         insert into revision_lease as l (id, tenant_id, revision_id, lease_id, claimed_by, expires_at, claims)
         select gen_random_uuid(), tenant_id, id, gen_random_uuid(), ?, now() + make_interval(secs => ?), 1 from claimed
         on conflict (revision_id) do update set lease_id = excluded.lease_id, claimed_by = excluded.claimed_by, expires_at = excluded.expires_at, claims = l.claims + 1
         returning l.revision_id, l.lease_id, l.expires_at
       )
       select claimed.id, claimed.tenant_id, claimed.deployment_id, leased.lease_id, leased.expires_at, claimed.source_tarball_path, claimed.image_uri
       from leased join claimed on claimed.id = leased.revision_id order by claimed.created_at, claimed.id`,
      [toArray(scope.tenantIds), ...ofListener.params, limit, limit, scope.apiKeyId, scope.leaseSeconds],
    );
    return rows.map((row) => ({
      revisionId: row.id, deploymentId: row.deployment_id, tenantId: row.tenant_id, leaseId: row.lease_id, expiresAt: timestampFromText(row.expires_at),
      sourceTarballPath: row.source_tarball_path, imageUri: row.image_uri,
    }));
  });
}

export interface StatusReport {
  revisionId: string;
  leaseId: string;
  status: RevisionStatus;
  /** What the data plane has to say with it (a failure's reason); null clears the last one. */
  message: string | null;
}

export interface ReportOutcome {
  revisionId: string;
  tenantId: string;
  /** False: the revision already had that status (a retried report); only the lease was renewed. */
  applied: boolean;
  /** When the lease lapses unless renewed; null once the revision is final. */
  leaseExpiresAt: Date | null;
}

interface LockedRevision {
  status: RevisionStatus;
  tenant_id: string;
  deployment_id: string;
}

/**
 * Moves a revision along the state machine for the data plane holding its lease, and renews the lease. A
 * revision reaching DEPLOYED becomes its deployment's active revision. Reporting the status the revision already
 * has changes nothing but the lease, so a report retried after a timeout is applied once.
 */
export async function reportRevisionStatus(scope: DataPlaneScope, report: StatusReport): Promise<ReportOutcome> {
  return inTransaction(scope, async (tx) => {
    const revision = await lockHeld(tx, scope, report.revisionId, report.leaseId, { deploymentFirst: true });
    const { status: from } = revision;
    const to = report.status;
    if (from === to) {
      const leaseExpiresAt = isFinal(from) ? null : await renewLease(tx, scope, report.revisionId);
      return { revisionId: report.revisionId, tenantId: revision.tenant_id, applied: false, leaseExpiresAt };
    }
    if (!mayReport(from, to)) throw new InvalidTransition(report.revisionId, from, to);
    await tx.execute('update revision set status = ?, status_message = ?, updated_at = now() where id = ?', [to, report.message, report.revisionId]);
    if (to === 'DEPLOYED') {
      await tx.execute('update deployment set active_revision_id = ?, updated_at = now() where id = ? and tenant_id = ?', [report.revisionId, revision.deployment_id, revision.tenant_id]);
    }
    const leaseExpiresAt = isFinal(to)
      ? (await tx.execute('update revision_lease set expires_at = null where revision_id = ?', [report.revisionId]), null)
      : await renewLease(tx, scope, report.revisionId);
    return { revisionId: report.revisionId, tenantId: revision.tenant_id, applied: true, leaseExpiresAt };
  });
}

export interface LogAppend {
  revisionId: string;
  /** The lease of the claim: needed for build and deploy lines; runtime lines need none (and one sent is not checked). */
  leaseId: string | null;
  phase: LogPhase;
  /** The number of the first line sent (lines are numbered from 0 per revision and phase). */
  firstLine: number;
  lines: { message: string; level: string | null; timestamp: Date | null }[];
}

export interface AppendOutcome {
  tenantId: string;
  /** Lines stored by this append (lines sent again are not stored twice). */
  appended: number;
  /** The number the next line gets. */
  nextLine: number;
  /** Null for runtime lines: they hold no lease. */
  leaseExpiresAt: Date | null;
}

/**
 * Stores log lines of a revision in progress for the data plane holding its lease, and renews the lease. Lines
 * are numbered by the data plane; lines already stored are skipped, so a retried append stores each line once.
 * A revision that has ended takes none (its last lines come before its final report), and a revision's log
 * keeps MAX_REVISION_LOG_LINES at most: an append whose new lines would pass that stores none. Appends to one
 * revision take its lock one after the other, and each counts the lines after taking it (read committed: the
 * count sees the lines of the append before), so two at once cannot pass the limit between them.
 *
 * Runtime lines (the running service's) are the exception: they come once the revision is DEPLOYED, from any
 * data plane of its tenant, without a lease; they do not count against the limit, and only the newest
 * MAX_RUNTIME_LOG_LINES are kept (an append deletes the older ones). Every append that stores lines announces
 * it (NOTIFY revision_log, ids and a line number only) in its transaction, for the `revisionLogLines` streams.
 */
export async function appendRevisionLogs(scope: DataPlaneScope, append: LogAppend): Promise<AppendOutcome> {
  const runtime = append.phase === 'runtime';
  return inTransaction(scope, async (tx) => {
    const revision = runtime ? await lockRunning(tx, scope, append.revisionId) : await lockHeld(tx, scope, append.revisionId, append.leaseId ?? '');
    if (!runtime && isFinal(revision.status)) throw new RevisionEnded(append.revisionId, revision.status);
    // The next line of the phase (lines are numbered without gaps), and how many build and deploy lines the revision has.
    const [{ next, stored, latest }] = await tx.execute<[{ next: number; stored: number; latest: Date | string | null }]>(
      `select coalesce(max(line) filter (where phase = ?) + 1, 0)::int as next, count(*) filter (where phase <> 'runtime')::int as stored,
         max(logged_at) filter (where phase = ?) as latest
       from revision_log_line where revision_id = ?`, [append.phase, append.phase, append.revisionId],
    );
    if (append.firstLine > next) throw new LogLinesOutOfOrder(append.firstLine, next);
    const fresh = append.lines.slice(next - append.firstLine);
    if (!runtime && stored + fresh.length > MAX_REVISION_LOG_LINES) throw new LogLineLimit(append.revisionId, MAX_REVISION_LOG_LINES, stored, fresh.length);
    if (fresh.length > 0) {
      // Times are kept to the millisecond, as answers write them: a time read back and sent as `start_time` finds its line.
      // Lines sent without one get the time they are stored, each a millisecond after the line before at least: a
      // follower (asc from the newest time it has) must never meet more lines of one time than its page holds.
      await tx.execute(
        `insert into revision_log_line (id, tenant_id, revision_id, phase, line, message, level, logged_at)
         select gen_random_uuid(), ?, ?, ?, ? + position - 1, message, level, coalesce(date_trunc('milliseconds', logged_at),
           greatest(date_trunc('milliseconds', clock_timestamp()), ?::timestamptz + interval '1 millisecond') + (count(*) filter (where logged_at is null) over (order by position) - 1) * interval '1 millisecond')
         from unnest(?::text[], ?::text[], ?::timestamptz[]) with ordinality as l(message, level, logged_at, position)`,
        [
          revision.tenant_id, append.revisionId, append.phase, next, latest ?? '-infinity',
          toArray(fresh.map((line) => line.message)), toArray(fresh.map((line) => line.level)), toArray(fresh.map((line) => line.timestamp?.toISOString() ?? null)),
        ],
      );
      const nextLine = next + fresh.length;
      if (runtime && nextLine > MAX_RUNTIME_LOG_LINES) {
        await tx.execute(`delete from revision_log_line where revision_id = ? and phase = 'runtime' and line < ?`, [append.revisionId, nextLine - MAX_RUNTIME_LOG_LINES]);
      }
      await tx.execute('select pg_notify(?, ?)', [REVISION_LOG_CHANNEL, [revision.tenant_id, revision.deployment_id, append.revisionId, append.phase, nextLine - 1].join(' ')]);
    }
    const leaseExpiresAt = runtime ? null : await renewLease(tx, scope, append.revisionId);
    return { tenantId: revision.tenant_id, appended: fresh.length, nextLine: next + fresh.length, leaseExpiresAt };
  });
}

/** The revision, locked, when it is one of the key's tenants' and DEPLOYED (running: it takes runtime lines). */
async function lockRunning(tx: EntityManager, scope: DataPlaneScope, revisionId: string): Promise<LockedRevision> {
  const ofListener = revisionOfListener(scope.listenerId, 'revision');
  const [revision] = await tx.execute<LockedRevision[]>(
    `select status, tenant_id, deployment_id from revision where id = ? and tenant_id = any(?::uuid[]) and ${ofListener.sql} for update`,
    [revisionId, toArray(scope.tenantIds), ...ofListener.params],
  );
  if (!revision) throw new RevisionNotFound(revisionId);
  if (revision.status !== 'DEPLOYED') throw new RevisionNotRunning(revisionId, revision.status);
  return revision;
}

export interface DeploymentReport {
  deploymentId: string;
  status?: DeploymentStatus | null;
  customUrl?: string | null;
  imageVersion?: string | null;
}

/** The deployment's `status`, `custom_url` and `image_version` as the data plane running it sees them (each only if given). */
export async function reportDeploymentStatus(scope: DataPlaneScope, report: DeploymentReport): Promise<{ tenantId: string }> {
  return inTransaction(scope, async (tx) => {
    // The tenants are named in the query itself: this key acts for several at once.
    const deployment = await tx.findOne(
      DeploymentSchema, { id: report.deploymentId, tenant: { $in: [...scope.tenantIds] } }, { ...ACROSS_TENANTS, lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!deployment || !(await isListenersDeployment(tx, scope, deployment.id))) throw new DeploymentNotFound(report.deploymentId);
    if (report.status != null) deployment.status = report.status;
    if (report.customUrl !== undefined) deployment.sourceConfig = { ...deployment.sourceConfig, customUrl: report.customUrl } as never;
    if (report.imageVersion !== undefined) deployment.imageVersion = report.imageVersion;
    deployment.updatedAt = new Date();
    return { tenantId: deployment.tenant.id };
  });
}

/** Whether the deployment is one the key's data plane works on (its listener's; another listener's is not found). */
async function isListenersDeployment(tx: EntityManager, scope: DataPlaneScope, deploymentId: string): Promise<boolean> {
  const work = workOfListener(scope.listenerId);
  const rows = await tx.execute(`select 1 from deployment d where d.id = ? and ${work.sql}`, [deploymentId, ...work.params]);
  return rows.length > 0;
}

/**
 * The revision, locked, when it is one of the key's tenants' and `leaseId` is its lease, not lapsed while the
 * revision is in progress (a lapsed lease is recovered by lease-expiry.ts, whatever its holder says meanwhile).
 * The revision and its lease are locked and read one after the other, so that a report waiting for a sweep
 * reads the lease as the sweep left it. `deploymentFirst`: its deployment is locked before them, as a write of
 * the deployment locks it before its revisions (a DEPLOYED report changes the deployment).
 */
async function lockHeld(
  tx: EntityManager, scope: DataPlaneScope, revisionId: string, leaseId: string, { deploymentFirst = false } = {},
): Promise<LockedRevision> {
  const tenants = toArray(scope.tenantIds);
  const ofListener = revisionOfListener(scope.listenerId, 'r');
  if (deploymentFirst) {
    await tx.execute(
      `select d.id from revision r join deployment d on d.id = r.deployment_id
       where r.id = ? and r.tenant_id = any(?::uuid[]) and ${ofListener.sql} for no key update of d`,
      [revisionId, tenants, ...ofListener.params],
    );
  }
  const [revision] = await tx.execute<LockedRevision[]>(
    `select status, tenant_id, deployment_id from revision r where r.id = ? and r.tenant_id = any(?::uuid[]) and ${ofListener.sql} for update of r`,
    [revisionId, tenants, ...ofListener.params],
  );
  if (!revision) throw new RevisionNotFound(revisionId);
  const [lease] = await tx.execute<{ lease_id: string; lapsed: boolean }[]>(
    'select lease_id, coalesce(expires_at < clock_timestamp(), false) as lapsed from revision_lease where revision_id = ? for update', [revisionId],
  );
  if (lease?.lease_id !== leaseId.toLowerCase() || (lease.lapsed && !isFinal(revision.status))) throw new LeaseLost(revisionId, revision.status);
  return revision;
}

async function renewLease(tx: EntityManager, scope: DataPlaneScope, revisionId: string): Promise<Date> {
  const [row] = await tx.execute<[{ expires_at: Date }]>(
    'update revision_lease set expires_at = now() + make_interval(secs => ?) where revision_id = ? returning expires_at', [scope.leaseSeconds, revisionId],
  );
  return timestampFromText(row.expires_at);
}

/** Whether PostgreSQL's timestamptz holds the time (years 1 to 9999, as the API writes them back). */
export const isStorableTime = (time: Date): boolean => {
  const year = time.getUTCFullYear();
  return year >= 1 && year <= 9999;
};

/** A PostgreSQL array literal of `values` (one parameter, whatever their number). */
function toArray(values: readonly (string | null)[]): string {
  return `{${values.map((value) => (value === null ? 'NULL' : `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`)).join(',')}}`;
}
