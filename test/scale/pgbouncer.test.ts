// The service behind a real PgBouncer in transaction mode (`npm run test:scale`; pgbouncer is a system package,
// so this is not part of `npm test`). PgBouncer has two server connections for the service's ten, so statements
// of different requests, and consecutive transactions of one, land on whichever server connection is free:
// anything resting on session state (startup parameters, a session SET, a named prepared statement, LISTEN)
// would fail or silently go wrong here. The migrations, the import and the key CLI go through it too.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, FIXTURE_PATH } from '../support/fixtures.ts';
import { startPgBouncer, type RunningPgBouncer } from '../support/pgbouncer.ts';
import { runCliProcess, startService, type ServiceProcess } from '../support/service-process.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-database.ts';

const SECRETS_KEY = randomBytes(32).toString('base64');
let db: TestDatabase;
let bouncer: RunningPgBouncer;
let service: ServiceProcess;
let key: string;

/** The service's variables behind PgBouncer: the pooled URL, and the direct one for LISTEN and migrations. */
const pooledEnv = () => ({ DATABASE_URL: bouncer.url, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: db.url, SECRETS_KEY });

const cli = (script: string, args: string[], env: Record<string, string> = pooledEnv()) => runCliProcess(script, args, env);

async function newKey(): Promise<{ key: string; prefix: string }> {
  const { code, output } = await cli('src/cli/apikey.ts', ['create', '--tenant', ACME, '--read-secrets', '--name', 'pgbouncer-test']);
  expect(code, output).toBe(0);
  return { key: /^(dmk_\S+)$/m.exec(output)![1]!, prefix: /Created API key (\S+)/.exec(output)![1]! };
}

const LIST = '{ deployments(limit: 10) { resources { uuid name status secrets { name value } sourceConfig { resourceSpec { cpu memoryMb } } } } }';

/** Bounds the wait for a revocation, below the minute the service caches a verified key (api-key-cache.ts). */
const KEY_HEARD_WITHIN_MS = 30_000;

async function graphql(query: string, apiKey = key): Promise<{ status: number; body: string }> {
  const response = await fetch(`${service.url}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify({ query }) });
  return { status: response.status, body: await response.text() };
}

async function rest(path: string, apiKey = key): Promise<{ status: number; body: string }> {
  const response = await fetch(new URL(path, service.url), { headers: { 'x-api-key': apiKey } });
  return { status: response.status, body: await response.text() };
}

beforeAll(async () => {
  // Not migrated: the service migrates on start, over DATABASE_DIRECT_URL.
  db = await createTestDatabase({ migrated: false });
  bouncer = await startPgBouncer(db.url, { serverConnections: 2 });
  service = await startService({ ...pooledEnv(), SEED_DEMO_DATA: 'false', DB_POOL_MAX: '10', LOG_LEVEL: 'info' });
  const imported = await cli('src/cli/import.ts', [fileURLToPath(FIXTURE_PATH)]);
  expect(imported.code, imported.output).toBe(0);
  ({ key } = await newKey());
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await bouncer?.stop();
  await db?.drop();
});

describe('behind PgBouncer in transaction mode', () => {
  it('serves both doors to many clients at once over two server connections, each answer the same as alone', async () => {
    const alone = { graphql: await graphql(LIST), rest: await rest('/v2/deployments?limit=10') };
    expect(alone.graphql.status).toBe(200);
    expect(JSON.parse(alone.graphql.body).data.deployments.resources.length).toBeGreaterThan(0);
    // Secret values are read (the key has the scope) and decrypted: the import through PgBouncer stored them.
    expect(alone.graphql.body).not.toContain('"value":null');
    expect(alone.rest.status).toBe(200);
    const together = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? rest('/v2/deployments?limit=10') : graphql(LIST))));
    together.forEach((answer, i) => expect(answer).toEqual(i % 2 ? alone.rest : alone.graphql));
  });

  it('hears a key revoked through the CLI while it is cached (LISTEN over DATABASE_DIRECT_URL)', async () => {
    const fresh = await newKey();
    expect((await graphql('{ tenant { name } }', fresh.key)).status).toBe(200); // now cached by the service
    const revoked = await cli('src/cli/apikey.ts', ['revoke', fresh.prefix]);
    expect(revoked.code, revoked.output).toBe(0);
    // Refused however slow the machine, but well within the minute the cache keeps the key: only the
    // revocation's NOTIFY can have ended it.
    await expect.poll(async () => (await graphql('{ tenant { name } }', fresh.key)).status, { timeout: KEY_HEARD_WITHIN_MS, interval: 50 }).toBe(401);
  });

  it('says at start when the server applies no statement timeout, and not once the role has one', async () => {
    expect(service.output()).toMatch(/DATABASE_POOLER=transaction: PostgreSQL applies no statement timeout to role/);
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      await admin.query(`alter database ${admin.escapeIdentifier(db.name)} set statement_timeout = '5s'`);
      // A new PgBouncer: server connections opened before the setting keep the old value until replaced.
      const renewed = await startPgBouncer(db.url);
      const second = await startService({ ...pooledEnv(), DATABASE_URL: renewed.url, SEED_DEMO_DATA: 'false' }).catch(async (error) => {
        await renewed.stop();
        throw error;
      });
      try {
        expect(second.output()).not.toMatch(/applies no statement timeout/);
        expect((await fetch(second.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: '{"query":"{ tenant { name } }"}' })).status).toBe(200);
      } finally {
        await second.stop();
        await renewed.stop();
      }
    } finally {
      await admin.query(`alter database ${admin.escapeIdentifier(db.name)} reset statement_timeout`);
      await admin.end();
    }
  });
});

describe('misconfigured for PgBouncer', () => {
  it('without DATABASE_POOLER, stops at start with one line naming the setting', async () => {
    const { code, output } = await cli('src/main.ts', [], { DATABASE_URL: bouncer.url, SECRETS_KEY, PORT: '0' });
    expect(code).not.toBe(0);
    expect(output).toMatch(/refuses the startup parameter statement_timeout, as PgBouncer does: .*DATABASE_POOLER=transaction and DATABASE_DIRECT_URL/);
    expect(output).not.toMatch(/\n\s+at /); // a line, not a stack trace
  });

  it('DATABASE_POOLER=transaction without DATABASE_DIRECT_URL is a configuration error naming the variable', async () => {
    const { code, output } = await cli('src/main.ts', [], { DATABASE_URL: bouncer.url, DATABASE_POOLER: 'transaction', SECRETS_KEY, PORT: '0' });
    expect(code).not.toBe(0);
    expect(output).toMatch(/Invalid configuration: DATABASE_DIRECT_URL is required with DATABASE_POOLER=transaction/);
  });
});
