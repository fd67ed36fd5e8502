// PostgreSQL plans from table statistics, which only ANALYZE (or autovacuum, when it runs: some servers run
// without it, and it lags behind a big write) refreshes. Until then the planner guesses, and after a large
// import into a new database it guessed wrong: the page's secrets statement filtered ~325,000 rows through the
// tenant index instead of looking up the page's deployments (a page 4x slower). So the tools that write in
// bulk (`npm run import`, `npm run bench:data`) refresh the statistics of the database once they have written.
import type { EntityManager } from '@mikro-orm/postgresql';

export async function refreshStatistics(em: EntityManager): Promise<void> {
  // Every table of the application's database: ANALYZE samples (30,000 rows a table at most), so this stays
  // a second or two even on the benchmark dataset.
  await em.getConnection().execute('analyze');
}
