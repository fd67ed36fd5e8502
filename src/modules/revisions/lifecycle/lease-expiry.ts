// The one status change the service makes on its own besides SKIPPED (docs/decisions.md#revision-lifecycle):
// a revision whose data plane stopped reporting for longer than its lease goes back to QUEUED, for another
// data plane to claim, while it is still its deployment's latest revision and has been claimed fewer than
// MAX_CLAIMS times; otherwise it ends INTERRUPTED. Every gateway process sweeps on a timer; sweeps running at
// once skip each other's rows, and a sweep is one statement, so a revision is recovered exactly once. It skips
// what a write or a report holds too (the deployment included, whose latest revision decides): it never waits,
// so it cannot deadlock with them, and a revision skipped is recovered by the next sweep.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../../observability/logger.ts';
import { IN_PROGRESS } from './revision-lifecycle.ts';

/** Claims a revision gets before a lost lease ends it INTERRUPTED rather than queuing it again. */
export const MAX_CLAIMS = 3;
/** Most revisions one sweep recovers (the next sweep takes the rest). */
const SWEEP_LIMIT = 1_000;

const IN_PROGRESS_SQL = IN_PROGRESS.map((status) => `'${status}'`).join(', ');

export interface RecoveredRevision {
  id: string;
  status: 'QUEUED' | 'INTERRUPTED';
}

/** Recovers the revisions whose lease lapsed (across tenants: this is the service's own rule, not a caller's). */
export async function recoverLapsedLeases(em: EntityManager): Promise<RecoveredRevision[]> {
  return em.transactional((tx) => tx.execute<RecoveredRevision[]>(
    `with lapsed as (
       select r.id, l.claims, d.latest_revision_id from revision r
       join revision_lease l on l.revision_id = r.id
       join deployment d on d.id = r.deployment_id
       where l.expires_at < now() and r.status in (${IN_PROGRESS_SQL})
       order by l.expires_at
       limit ${SWEEP_LIMIT}
       for update of r, l skip locked
       for no key update of d skip locked
     ), recovered as (
       update revision r set
         status = case when x.claims < ${MAX_CLAIMS} and x.latest_revision_id = r.id then 'QUEUED' else 'INTERRUPTED' end,
         status_message = 'The data plane working on it stopped reporting: its lease lapsed.',
         updated_at = now()
       from lapsed x where r.id = x.id
       returning r.id, r.status
     ), released as (
       -- A fresh lease id nobody holds: the old holder's reports are refused from now on.
       update revision_lease l set expires_at = null, lease_id = gen_random_uuid() from recovered where l.revision_id = recovered.id
     )
     select id, status from recovered`,
  ));
}

/** How often a process sweeps: a quarter of the lease, at most every 5 seconds and at least every second. */
export const leaseSweepIntervalMs = (leaseSeconds: number): number => Math.min(5_000, Math.max(1_000, (leaseSeconds * 1_000) / 4));

/** Sweeps every `intervalMs` until stopped; a failed sweep is logged and the next one tries again. */
export function startLeaseSweeps(em: EntityManager, intervalMs: number, logger: Logger): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    recoverLapsedLeases(em.fork())
      .then((recovered) => {
        if (recovered.length > 0) logger.warn({ revisions: recovered }, 'revision leases lapsed: revisions queued again or interrupted');
      })
      .catch((error: unknown) => logger.error({ err: error }, 'revision lease sweep failed; the next one tries again'))
      .finally(() => { running = false; });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
