// Behind a pooler in transaction mode (PgBouncer pool_mode=transaction) each transaction may run on another
// server connection, so nothing may rest on session state: no startup parameters, no session SET, no LISTEN
// (that one has DATABASE_DIRECT_URL). The statement timeout is then the server's own setting for the role or
// database; this says at start-up when there is none, because a runaway statement would hold a server
// connection of the pooler's small pool for as long as it runs.
import type { AppOrm } from './orm-config.ts';

/** The warning to log when the server applies no statement timeout to the pooled connections; none otherwise. */
export async function missingServerStatementTimeout(orm: AppOrm, wantedMs: number): Promise<string | undefined> {
  if (wantedMs === 0) return undefined;
  const [row] = await orm.em.getConnection().execute<{ ms: number; role: string }[]>(
    `select extract(epoch from current_setting('statement_timeout')::interval) * 1000 as ms, current_user as role`);
  if (Number(row?.ms) > 0) return undefined;
  return `DATABASE_POOLER=transaction: PostgreSQL applies no statement timeout to role "${row?.role}" (startup parameters cannot `
    + `pass a pooler); set one on the server, e.g. ALTER ROLE "${row?.role}" SET statement_timeout = '${wantedMs}ms'. Until then `
    + `requests still give up after ${wantedMs + 1000} ms, but the statement runs on.`;
}
