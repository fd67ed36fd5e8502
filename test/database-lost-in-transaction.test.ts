// A connection lost in the middle of a transaction or a statement (its backend terminated, as when the server
// restarts or fails over) goes back to the pool as a dead one (src/db/callback-query-client.ts): the service
// keeps a full pool, however many transactions were broken off, instead of waiting ever after for connections
// that never come back, and no statement is handed a connection that is going. Real PostgreSQL, the ORM as the
// service configures it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

/** The test database's pool has 4 connections (test-database.ts): break off more transactions than that. */
const BROKEN_OFF = 6;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
// Closing the pool waits for every connection it handed out: a lost one never given back hangs it here.
afterAll(() => db?.drop());

/** A transaction whose backend is terminated before its next statement; what it failed with. */
async function brokenOffTransaction(): Promise<string> {
  try {
    await db.orm.em.fork().transactional(async (tx) => {
      const [row] = await tx.execute<{ pid: number }[]>('select pg_backend_pid() as pid');
      await db.query('select pg_terminate_backend($1)', [row!.pid]);
      await tx.execute('select 1');
    });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the transaction did not fail');
}

describe('a transaction whose connection is lost', () => {
  it('fails, and leaves the pool able to serve, however often it happens', async () => {
    for (let round = 0; round < BROKEN_OFF; round++) {
      // The connection's loss, seen in the statement or before it; never the pool's "timeout exceeded when
      // trying to connect": each transaction got a connection.
      expect(await brokenOffTransaction(), `round ${round}`).toMatch(/terminating connection due to administrator command|Connection terminated|not queryable/);
    }
    const [row] = await db.orm.em.fork().execute<{ one: number }[]>('select 1 as one');
    expect(row).toEqual({ one: 1 });
  });
});

describe('a statement whose connection is lost', () => {
  it('fails, and its connection is not handed to the next statement', async () => {
    const em = db.orm.em.fork();
    for (let round = 0; round < BROKEN_OFF; round++) {
      // The server answers with a FATAL error, then closes the connection: the next statement comes in between.
      await expect(em.execute('select pg_terminate_backend(pg_backend_pid())'), `round ${round}`).rejects.toThrow(/terminating connection due to administrator command/);
      expect(await em.execute('select 1 as one'), `round ${round}`).toEqual([{ one: 1 }]);
    }
  });
});
