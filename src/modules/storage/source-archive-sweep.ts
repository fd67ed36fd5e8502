// Removes the source archives nobody can use any more (docs/operations.md#source-archives): those of deleted
// deployments, and uploads no PATCH named before they expired. Every gateway process sweeps on a timer, as
// the lease sweep does (revisions/lifecycle/lease-expiry.ts); sweeps running at once skip each other's rows.
// A row is locked while its object is removed and deleted after, in one transaction: a PATCH naming the path
// meanwhile waits, then finds no path. A deleted deployment's row whose upload URL is still valid stays (its
// object is removed again by each sweep) until the URL has expired: a PUT still under way cannot leave an
// object behind that no row remembers.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../observability/logger.ts';
import type { SourceArchives } from './source-archives.ts';

/** Rows one sweep takes (the next sweep takes the rest). */
const SWEEP_LIMIT = 200;
/** Objects removed at once. */
const DELETES_AT_ONCE = 8;
/** How often each process sweeps. */
export const SOURCE_ARCHIVE_SWEEP_MS = 60_000;

export interface SweptArchives {
  /** Objects removed (some of them may have been removed before, or never uploaded). */
  removed: number;
  /** Upload records deleted. */
  forgotten: number;
}

interface Doomed {
  id: string;
  object_path: string;
  /** The upload URL can no longer be used: the record may go. */
  url_over: boolean;
}

export async function sweepSourceArchives(em: EntityManager, archives: SourceArchives): Promise<SweptArchives> {
  return em.transactional(async (tx) => {
    const rows = await tx.execute<Doomed[]>(
      `select u.id, u.object_path, u.url_expires_at < now() as url_over from source_upload u
       where (u.used_by_revision_id is null and u.expires_at < now())
          or not exists (select 1 from deployment d where d.id = u.deployment_id)
       order by u.created_at
       limit ${SWEEP_LIMIT}
       for update of u skip locked`,
    );
    for (let i = 0; i < rows.length; i += DELETES_AT_ONCE) {
      await Promise.all(rows.slice(i, i + DELETES_AT_ONCE).map((row) => archives.store.delete(row.object_path)));
    }
    const forgotten = rows.filter((row) => row.url_over).map((row) => row.id);
    if (forgotten.length > 0) await tx.execute('delete from source_upload where id = any(?::uuid[])', [`{${forgotten.join(',')}}`]);
    return { removed: rows.length, forgotten: forgotten.length };
  });
}

/** Sweeps every `intervalMs` until stopped; a failed sweep is logged and the next one tries again. */
export function startSourceArchiveSweeps(em: EntityManager, archives: SourceArchives, logger: Logger, intervalMs = SOURCE_ARCHIVE_SWEEP_MS): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepSourceArchives(em.fork(), archives)
      .then((swept) => {
        if (swept.removed > 0) logger.info(swept, 'source archives of deleted deployments and unused uploads removed');
      })
      .catch((error: unknown) => logger.error({ err: error }, 'source archive sweep failed; the next one tries again'))
      .finally(() => { running = false; });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
