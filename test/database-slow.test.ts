// A database that is reachable but does not answer in time (a lock held elsewhere, an overloaded server) is
// as temporary as one that is gone: PostgreSQL cancels the statement after DB_STATEMENT_TIMEOUT_MS and both
// doors answer 503 with Retry-After, instead of holding the request or answering 500. A full pool is bounded
// the same way (DB_CONNECT_TIMEOUT_MS). And /ready tells a database without its migrations from a ready one.
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrmConfig, type AppOrm } from '../src/db/orm-config.ts';
import { entities } from '../src/modules/entities.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const STATEMENT_TIMEOUT_MS = 300;
const CONNECT_TIMEOUT_MS = 300;

let db: TestDatabase;
let orm: AppOrm;
let app: RunningApp;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  // The key is verified once here, so that authentication does not wait on the lock below.
  key = await issueKey(db.orm.em, [ACME]);
  orm = (await MikroORM.init(createOrmConfig({
    entities, clientUrl: db.url, poolMax: 2, timeouts: { connectTimeoutMs: CONNECT_TIMEOUT_MS, statementTimeoutMs: STATEMENT_TIMEOUT_MS },
  }))) as unknown as AppOrm;
  app = await startApp(orm, cipher);
});
afterAll(async () => {
  await app?.close();
  await orm?.close(true);
  await db?.drop();
});

/** Runs `during` while another session holds an exclusive lock on the deployment table. */
async function whileLocked<T>(during: () => Promise<T>): Promise<T> {
  const locker = new pg.Client({ connectionString: db.url });
  await locker.connect();
  try {
    await locker.query('begin');
    await locker.query('lock table deployment in access exclusive mode');
    return await during();
  } finally {
    await locker.query('rollback').catch(() => {});
    await locker.end();
  }
}

describe('a database that does not answer in time', () => {
  it('cancels the statement after the timeout and answers 503 with Retry-After on both doors', async () => {
    await whileLocked(async () => {
      const started = Date.now();
      const rest = await fetch(`${app.url}/v2/deployments?limit=5`, { headers: { 'x-api-key': key } });
      expect(rest.status).toBe(503);
      expect(rest.headers.get('retry-after')).toBe('5');
      expect(await rest.json()).toEqual({ detail: 'Service Unavailable: the database cannot be reached, retry shortly' });
      const graphql = await app.graphql('{ deployments(limit: 5) { resources { name } } }', { 'x-api-key': key });
      expect(graphql.status).toBe(503);
      expect(graphql.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
      // Two requests, each bounded by the statement timeout (with room for a loaded machine), not by the lock.
      expect(Date.now() - started).toBeLessThan(10 * STATEMENT_TIMEOUT_MS + 3000);
    });
    // The lock is gone: the same request is served again.
    const after = await fetch(`${app.url}/v2/deployments?limit=5`, { headers: { 'x-api-key': key } });
    expect(after.status).toBe(200);
  });

  it('answers 503 when every pooled connection stays busy longer than the wait for one', async () => {
    const client = await orm.em.getConnection().getNativeClient();
    const held = await Promise.all([client.connect(), client.connect()]);
    try {
      const response = await fetch(`${app.url}/v2/deployments?limit=5`, { headers: { 'x-api-key': key } });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
    } finally {
      for (const connection of held) connection.release();
    }
    expect((await fetch(`${app.url}/v2/deployments?limit=5`, { headers: { 'x-api-key': key } })).status).toBe(200);
  });
});

describe('/ready', () => {
  it('is 503 while migrations are pending, naming how many', async () => {
    const empty = await createTestDatabase({ migrated: false });
    const unmigrated = await startApp(empty.orm, newCipher());
    try {
      const response = await fetch(`${unmigrated.url}/ready`);
      expect(response.status).toBe(503);
      const body = await response.json();
      expect(body.checks.database).toBe('ok');
      expect(body.checks.migrations).toMatch(/^\d+ pending$/);
    } finally {
      await unmigrated.close();
      await empty.drop();
    }
  });
});
