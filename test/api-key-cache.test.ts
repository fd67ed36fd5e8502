// Verified keys are cached so that a request needs no authentication query, and a revocation still takes
// effect at once: in this process directly, from another process (the CLI) through NOTIFY, and not at all
// cached while no revocation can be heard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayPrefix } from '../src/modules/tenancy/api-key-secret.ts';
import { ApiKeyCache } from '../src/modules/tenancy/api-key-cache.ts';
import { REVOCATION_CHANNEL } from '../src/modules/tenancy/api-key-revocations.ts';
import { DatabaseNotifications } from '../src/db/database-notifications.ts';
import { revokeApiKey } from '../src/modules/tenancy/api-key.service.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { runNode } from './support/service-process.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
let app: RunningApp;
let cache: ApiKeyCache;
let notifications: DatabaseNotifications;
let keyQueries = 0;

const TENANT = '{ tenant { name } }';
const statusWith = async (key: string) => (await app.graphql(TENANT, { 'x-api-key': key })).status;

beforeAll(async () => {
  db = await createTestDatabase({ onQuery: (sql) => { if (/from "api_key"/.test(sql)) keyQueries++; } });
  const cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  notifications = new DatabaseNotifications([REVOCATION_CHANNEL]);
  cache = new ApiKeyCache();
  cache.listenTo(notifications);
  await notifications.start(db.url);
  app = await startApp(db.orm, cipher, cache);
});
afterAll(async () => {
  await app?.close();
  cache?.stop();
  await notifications?.stop();
  await db?.drop();
});

/** Waits for what `check` looks for; `ms` only bounds a failure (generous: a busy machine is slow, not wrong). */
async function eventually(check: () => Promise<boolean>, ms = 20_000): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < ms;) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}

describe('API key cache', () => {
  it('serves a verified key without querying the database again', async () => {
    const key = await issueKey(db.orm.em, [ACME]);
    expect(await statusWith(key)).toBe(200);
    keyQueries = 0;
    expect(await statusWith(key)).toBe(200);
    expect(await statusWith(key)).toBe(200);
    expect(keyQueries).toBe(0);
  });

  // Entries are found by the key as presented (no hash on a hit): nothing but that exact key may find one.
  it('answers only the exact key it verified: a key a character away, of another case or longer is refused', async () => {
    const key = await issueKey(db.orm.em, [ACME]);
    expect(await statusWith(key)).toBe(200);
    const last = key.at(-1)!;
    const nearby = [
      key.slice(0, -1) + (last === 'A' ? 'B' : 'A'), key.toUpperCase(), key.toLowerCase(), `${key}A`, key.slice(0, -1),
    ].filter((candidate) => candidate !== key);
    for (const candidate of nearby) expect(await statusWith(candidate), candidate).toBe(401);
    // As a bearer token, or with spaces around it, it is the same key.
    expect((await app.graphql(TENANT, { authorization: `Bearer ${key}` })).status).toBe(200);
    expect(await statusWith(` ${key} `)).toBe(200);
  });

  it('refuses a key revoked in this process on the very next request', async () => {
    const key = await issueKey(db.orm.em, [ACME]);
    expect(await statusWith(key)).toBe(200);
    await revokeApiKey(db.orm.em.fork(), displayPrefix(key));
    expect(await statusWith(key)).toBe(401);
  });

  it('refuses a key revoked by `npm run apikey -- revoke` in another process, within moments', async () => {
    const key = await issueKey(db.orm.em, [ACME]);
    expect(await statusWith(key)).toBe(200);
    const cli = runNode('src/cli/apikey.ts', ['revoke', displayPrefix(key)], {
      DATABASE_URL: db.url, SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'), MIGRATE_ON_START: 'false',
    });
    expect(await new Promise((resolve) => cli.once('exit', resolve))).toBe(0);
    expect(await eventually(async () => (await statusWith(key)) === 401)).toBe(true);
    expect(await statusWith(key)).toBe(401);
  });

  it('does not cache a key whose database read was overtaken by a revocation', async () => {
    const verified = { apiKeyId: 'read-before-revocation', tenantIds: [ACME], mayReadSecrets: false, mayWrite: false, mayReconcile: false, listenerId: null };
    const readStarted = cache.generation;
    cache.evict(verified.apiKeyId); // the revocation arrives while the row is on its way
    cache.set('dmk_presented-revoked-key', verified, readStarted);
    expect(cache.get('dmk_presented-revoked-key')).toBeUndefined();
    // A read that nothing overtook is cached as usual.
    cache.set('dmk_presented-current-key', { ...verified, apiKeyId: 'current' }, cache.generation);
    expect(cache.get('dmk_presented-current-key')?.apiKeyId).toBe('current');
  });

  it('caches nothing while it cannot hear revocations', async () => {
    const key = await issueKey(db.orm.em, [ACME]);
    const deaf = new ApiKeyCache(); // never listening
    const other = await startApp(db.orm, newCipher(), deaf);
    try {
      expect((await other.graphql(TENANT, { 'x-api-key': key })).status).toBe(200);
      // A revocation nobody announces (written straight into the table) is still seen at once.
      await db.query('update api_key set revoked_at = now() where prefix = $1', [displayPrefix(key)]);
      expect((await other.graphql(TENANT, { 'x-api-key': key })).status).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('forgets every entry when its LISTEN connection is lost, and listens again afterwards', async () => {
    const key = await issueKey(db.orm.em, [ACME]);
    expect(await statusWith(key)).toBe(200);
    const before = cache.generation;
    const terminated = await db.query<{ ok: boolean }>(
      `select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = current_database() and query ilike 'LISTEN%'`);
    expect(terminated).toEqual([{ ok: true }]);
    // The cache has heard of the loss (it moves its generation on when it forgets).
    expect(await eventually(async () => cache.generation > before)).toBe(true);
    // Written without NOTIFY: only a cache that forgot the key can see it.
    await db.query('update api_key set revoked_at = now() where prefix = $1', [displayPrefix(key)]);
    expect(await statusWith(key)).toBe(401);

    const next = await issueKey(db.orm.em, [ACME]);
    const cachedAgain = async () => {
      keyQueries = 0;
      await statusWith(next);
      return keyQueries === 0;
    };
    expect(await eventually(cachedAgain, 5000)).toBe(true);
  });
});
