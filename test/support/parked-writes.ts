// Parking the app's writes at a known point of their transactions: a connection of the test's own holds a lock
// a write needs, the test waits until the app's backends queue behind it, then lets them go (to make writes
// overlap for certain rather than by luck) or terminates one (a database connection lost mid-transaction).
import pg from 'pg';
import type { TestDatabase } from './test-database.ts';

export interface LockHolder {
  /** Ends the holder's transaction (its locks go with it) and closes its connection. */
  release(): Promise<void>;
}

/** Opens a transaction on a connection of its own and runs `lockSql` in it (a LOCK TABLE, a SELECT … FOR UPDATE). */
export async function holdLock(db: TestDatabase, lockSql: string, params: unknown[] = []): Promise<LockHolder> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query('begin');
  await client.query(lockSql, params);
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      try {
        await client.query('rollback');
      } finally {
        await client.end();
      }
    },
  };
}

/** A backend of the test database, as pg_stat_activity shows it. */
export interface Backend {
  pid: number;
  query: string;
  waitEvent: string;
}

/**
 * The backends of the test database waiting for a lock, once at least `count` do (polled: PostgreSQL has no
 * event for it). Fails after `ms`, a bound for a slow machine, naming what was waiting then.
 */
export async function lockWaiters(db: TestDatabase, count: number, ms = 15_000): Promise<Backend[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const waiting = await db.query<Backend>(
      `select pid, query, wait_event as "waitEvent" from pg_stat_activity
        where datname = current_database() and backend_type = 'client backend' and wait_event_type = 'Lock'
        order by backend_start`);
    if (waiting.length >= count) return waiting;
    if (Date.now() > deadline) throw new Error(`${waiting.length} backends waiting for a lock after ${ms} ms, not ${count}: ${JSON.stringify(waiting)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Ends a backend as a lost connection would (`pg_terminate_backend`): its transaction is rolled back. */
export async function terminate(db: TestDatabase, pid: number): Promise<void> {
  const [row] = await db.query<{ terminated: boolean }>('select pg_terminate_backend($1) as terminated', [pid]);
  if (!row?.terminated) throw new Error(`backend ${pid} was not terminated`);
}

/** Whether a table lock of `mode` on `table` is held by backend `pid`. */
export async function holdsTableLock(db: TestDatabase, pid: number, table: string, mode: string): Promise<boolean> {
  const rows = await db.query(
    `select 1 from pg_locks l join pg_class c on c.oid = l.relation
      where l.pid = $1 and c.relname = $2 and l.mode = $3 and l.granted`, [pid, table, mode]);
  return rows.length > 0;
}
