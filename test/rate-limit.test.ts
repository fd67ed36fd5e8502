// Request budgets per API key, on both doors, in memory and shared through Redis; and failed authentications
// per address, so that guessing keys stops before it reaches the database.
import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_FAILURES_PER_MINUTE, RateLimiter } from '../src/limits/rate-limiter.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, GLOBEX, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import type { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';
const PER_MINUTE = 5;

let db: TestDatabase;
let cipher: SecretCipher;
let statements = 0;
const running: Array<{ app: RunningApp; limiter: RateLimiter }> = [];

beforeAll(async () => {
  db = await createTestDatabase({ onQuery: () => statements++ });
  cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
});
afterAll(async () => {
  for (const { app, limiter } of running) {
    await app.close();
    await limiter.close();
  }
  await db?.drop();
});

async function appWithLimit(options: { redisUrl?: string; keyPrefix?: string } = {}): Promise<RunningApp> {
  const limiter = new RateLimiter({ perMinute: PER_MINUTE, keyPrefix: options.keyPrefix ?? `test-${randomUUID()}`, redisUrl: options.redisUrl });
  if (options.redisUrl === REDIS_URL) expect(await limiter.connected(5000)).toBe(true);
  const app = await startApp(db.orm, cipher, undefined, { rateLimiter: limiter });
  running.push({ app, limiter });
  return app;
}

const rest = (app: RunningApp, key: string) => fetch(`${app.url}/v2/deployments?limit=1`, { headers: { 'x-api-key': key } });
const gql = (app: RunningApp, key: string) => app.graphql('{ tenant { name } }', { 'x-api-key': key });

function redisReachable(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port: 6379 });
    socket.setTimeout(500);
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
  });
}

describe('per API key, in memory', () => {
  it('counts down in RateLimit headers, then answers REST with 429, Retry-After and a legacy detail body', async () => {
    const app = await appWithLimit();
    const key = await issueKey(db.orm.em, [ACME]);
    const remaining: string[] = [];
    for (let i = 0; i < PER_MINUTE; i++) {
      const response = await rest(app, key);
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-limit')).toBe(String(PER_MINUTE));
      remaining.push(response.headers.get('ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const refused = await rest(app, key);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    const body = await refused.json();
    expect(Object.keys(body)).toEqual(['detail']);
    expect(body.detail).toMatch(/^Rate limit exceeded: at most 5 requests per minute per API key; retry in \d+ s$/);
  });

  it('shares one budget between the doors and answers GraphQL with RATE_LIMITED and HTTP 429', async () => {
    const app = await appWithLimit();
    const key = await issueKey(db.orm.em, [ACME]);
    for (let i = 0; i < 3; i++) expect((await rest(app, key)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await gql(app, key)).status).toBe(200);
    const refused = await gql(app, key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors[0]).toMatchObject({ extensions: { code: 'RATE_LIMITED' } });
    expect(refused.body.errors[0].message).toMatch(/Rate limit exceeded/);
  });

  it("keeps each key's budget its own: one key spending all of it does not touch another's", async () => {
    const app = await appWithLimit();
    const greedy = await issueKey(db.orm.em, [ACME]);
    const other = await issueKey(db.orm.em, [GLOBEX]);
    for (let i = 0; i < PER_MINUTE + 2; i++) await rest(app, greedy);
    expect((await rest(app, greedy)).status).toBe(429);
    expect((await rest(app, other)).status).toBe(200);
  });

  it('refuses a spent key without running its query', async () => {
    const app = await appWithLimit();
    const key = await issueKey(db.orm.em, [ACME]);
    for (let i = 0; i < PER_MINUTE; i++) await rest(app, key);
    const before = statements;
    expect((await rest(app, key)).status).toBe(429);
    // At most the authentication lookup (this test runs without the key cache); never the page.
    expect(statements - before).toBeLessThanOrEqual(1);
  });
});

describe('failed authentications per address', () => {
  it(`answers 429 instead of 401 once an address has presented ${AUTH_FAILURES_PER_MINUTE} wrong keys in a minute`, async () => {
    const app = await appWithLimit();
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i++) {
      const response = await rest(app, `dmk_${'A'.repeat(43)}`);
      expect(response.status).toBe(401);
    }
    const refused = await rest(app, `dmk_${'B'.repeat(43)}`);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toEqual({ detail: expect.stringMatching(/^Too many failed authentications from this address; retry in \d+ s$/) });
    const graphql = await gql(app, `dmk_${'C'.repeat(43)}`);
    expect(graphql.status).toBe(429);
    expect(graphql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
  });

  it('never refuses a valid key for its address (clients behind one proxy share it), nor counts missing keys', async () => {
    const app = await appWithLimit();
    const key = await issueKey(db.orm.em, [ACME]);
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE + 5; i++) await rest(app, `dmk_${'D'.repeat(43)}`);
    expect((await rest(app, `dmk_${'E'.repeat(43)}`)).status).toBe(429);
    expect((await rest(app, key)).status).toBe(200);
    expect((await gql(app, key)).status).toBe(200);

    const other = await appWithLimit();
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE + 5; i++) expect((await fetch(`${other.url}/v2/deployments`)).status).toBe(401);
    expect((await rest(other, `dmk_${'F'.repeat(43)}`)).status).toBe(401);
  });

  it('refuses a caller without a key or budget before parsing its document', async () => {
    const app = await appWithLimit();
    const key = await issueKey(db.orm.em, [ACME]);
    for (let i = 0; i < PER_MINUTE; i++) await rest(app, key);
    // A document that does not even parse: a caller who may not run it learns nothing about it.
    const broken = await app.graphql('{ this is not graphql', { 'x-api-key': key });
    expect(broken.status).toBe(429);
    const anonymous = await app.graphql('{ this is not graphql', {});
    expect(anonymous.status).toBe(401);
  });
});

describe('shared through Redis', async () => {
  const reachable = await redisReachable();

  it.skipIf(!reachable)('gives two replicas one budget per key', async () => {
    const keyPrefix = `test-${randomUUID()}`;
    const first = await appWithLimit({ redisUrl: REDIS_URL, keyPrefix });
    const second = await appWithLimit({ redisUrl: REDIS_URL, keyPrefix });
    const key = await issueKey(db.orm.em, [ACME]);
    const statuses: number[] = [];
    for (let i = 0; i < PER_MINUTE + 1; i++) statuses.push((await rest(i % 2 === 0 ? first : second, key)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // Both replicas now refuse the key.
    expect((await rest(first, key)).status).toBe(429);
    expect((await rest(second, key)).status).toBe(429);
  });

  it('falls back to a budget in memory when Redis cannot be reached (neither refusing nor unlimited)', async () => {
    const app = await appWithLimit({ redisUrl: 'redis://127.0.0.1:1' });
    const key = await issueKey(db.orm.em, [ACME]);
    const statuses: number[] = [];
    for (let i = 0; i < PER_MINUTE + 1; i++) statuses.push((await rest(app, key)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });
});
