// PostgreSQL plans from table statistics, which only ANALYZE (or autovacuum, when it runs: some servers run
// without it, and it lags behind a big write) refreshes. Until then the planner guesses, and after a large
// import into a new database it guessed wrong: the page's secrets statement filtered ~325,000 rows through the
// tenant index instead of looking up the page's deployments (a page 4x slower). So the tools that write in
// bulk (`npm run import`, `npm run bench:data`) refresh the statistics of the database once they have written.
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Tables analysed at the same time, each on a connection of its own. ANALYZE of one table is one server core's
 * work, and the deployments alone (their jsonb read back) took half of analysing the benchmark's database:
 * two at a time, 0.64-0.68 s became 0.33-0.39 s (docs/performance.md#import).
 */
const AT_ONCE = 2;

export async function refreshStatistics(em: EntityManager): Promise<void> {
  const connection = em.getConnection();
  // Every table of the application's schema, largest first; ANALYZE samples (30,000 rows a table at most), so
  // this stays a second or two even on the benchmark dataset.
  const tables = await connection.execute<{ name: string }[]>(
    `select c.oid::regclass::text as name from pg_class c
     where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')
     order by pg_total_relation_size(c.oid) desc`);
  const queue = tables.map(({ name }) => name);
  const lane = async () => {
    for (let table = queue.shift(); table !== undefined; table = queue.shift()) await connection.execute(`analyze ${table}`);
  };
  await Promise.all(Array.from({ length: AT_ONCE }, lane));
}
