// Request budgets per API key, on both doors, in memory and shared through Redis; and failed authentications
// per address, so that guessing keys stops before it reaches the database.
import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AUTH_FAILURES_PER_MINUTE, RateLimiter, RateLimitExceeded } from '../src/limits/rate-limiter.ts';
import { ApiKeyCache } from '../src/modules/tenancy/api-key-cache.ts';
import { REVOCATION_CHANNEL } from '../src/modules/tenancy/api-key-revocations.ts';
import { DatabaseNotifications } from '../src/db/database-notifications.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, GLOBEX, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import type { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';
const PER_MINUTE = 5;

let db: TestDatabase;
let cipher: SecretCipher;
let statements = 0;
let notifications: DatabaseNotifications;
const running: Array<{ app: RunningApp; limiter: RateLimiter; cache?: ApiKeyCache }> = [];

beforeAll(async () => {
  db = await createTestDatabase({ onQuery: () => statements++ });
  cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  notifications = new DatabaseNotifications([REVOCATION_CHANNEL]);
  await notifications.start(db.url);
});
afterAll(async () => {
  for (const { app, limiter, cache } of running) {
    await app.close();
    await limiter.close();
    cache?.stop();
  }
  await notifications?.stop();
  await db?.drop();
});

/**
 * A service with a budget of PER_MINUTE. With `cachedKeys`, verified keys are cached as in production, and a
 * request with a cached key is authenticated and its budget spent at once (src/graphql/context.ts).
 */
async function appWithLimit(options: { redisUrl?: string; keyPrefix?: string; cachedKeys?: boolean } = {}): Promise<RunningApp> {
  const limiter = new RateLimiter({ perMinute: PER_MINUTE, keyPrefix: options.keyPrefix ?? `test-${randomUUID()}`, redisUrl: options.redisUrl });
  if (options.redisUrl === REDIS_URL) expect(await limiter.connected(5000)).toBe(true);
  const cache = options.cachedKeys ? new ApiKeyCache() : undefined;
  cache?.listenTo(notifications);
  const app = await startApp(db.orm, cipher, cache, { rateLimiter: limiter });
  running.push({ app, limiter, cache });
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

describe.each([
  { keys: 'verified on each request', cachedKeys: false },
  { keys: 'cached, so authenticated at once', cachedKeys: true },
])('per API key, in memory, keys $keys', ({ cachedKeys }) => {
  const limitedApp = () => appWithLimit({ cachedKeys });

  it('counts down in RateLimit headers, then answers REST with 429, Retry-After and a legacy detail body', async () => {
    const app = await limitedApp();
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
    const app = await limitedApp();
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
    const app = await limitedApp();
    const greedy = await issueKey(db.orm.em, [ACME]);
    const other = await issueKey(db.orm.em, [GLOBEX]);
    for (let i = 0; i < PER_MINUTE + 2; i++) await rest(app, greedy);
    expect((await rest(app, greedy)).status).toBe(429);
    expect((await rest(app, other)).status).toBe(200);
  });

  it('refuses a spent key without running its query', async () => {
    const app = await limitedApp();
    const key = await issueKey(db.orm.em, [ACME]);
    for (let i = 0; i < PER_MINUTE; i++) await rest(app, key);
    const before = statements;
    expect((await rest(app, key)).status).toBe(429);
    // At most the authentication lookup (none with the key cache); never the page.
    expect(statements - before).toBeLessThanOrEqual(cachedKeys ? 0 : 1);
  });

  it('counts down on GraphQL too, the same document again and again (run prepared), then refuses it', async () => {
    const app = await limitedApp();
    const key = await issueKey(db.orm.em, [ACME]);
    const remaining: string[] = [];
    for (let i = 0; i < PER_MINUTE; i++) {
      const response = await gql(app, key);
      expect(response.status).toBe(200);
      remaining.push(response.headers.get('ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const refused = await gql(app, key);
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0]).toMatchObject({ extensions: { code: 'RATE_LIMITED' } });
  });
});

describe('budgets counted in this process', () => {
  it('start a window at a key\'s first request, refuse past the budget until it ends, then start again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const limiter = new RateLimiter({ perMinute: 2 });
    try {
      vi.setSystemTime(new Date('2026-11-26T12:00:00Z'));
      expect(limiter.consumeAtOnce('key')).toEqual({ limit: 2, remaining: 1, resetSeconds: 60 });
      vi.setSystemTime(new Date('2026-11-26T12:00:20.500Z'));
      expect(await limiter.consume('key')).toEqual({ limit: 2, remaining: 0, resetSeconds: 40 });
      expect(() => limiter.consumeAtOnce('key')).toThrow(RateLimitExceeded);
      await expect(limiter.consume('key')).rejects.toMatchObject({ state: { limit: 2, remaining: 0, resetSeconds: 40 }, subject: 'api-key' });
      // Another key has a budget of its own.
      expect(limiter.consumeAtOnce('other')).toEqual({ limit: 2, remaining: 1, resetSeconds: 60 });
      vi.setSystemTime(new Date('2026-11-26T12:00:59.999Z'));
      expect(() => limiter.consumeAtOnce('key')).toThrow(RateLimitExceeded);
      vi.setSystemTime(new Date('2026-11-26T12:01:00Z'));
      expect(limiter.consumeAtOnce('key')).toEqual({ limit: 2, remaining: 1, resetSeconds: 60 });
    } finally {
      vi.useRealTimers();
      await limiter.close();
    }
  });

  it('are not counted at once where they are shared (Redis, or the workers\' primary)', async () => {
    const limiter = new RateLimiter({ perMinute: 2, redisUrl: 'redis://127.0.0.1:1' });
    try {
      expect(limiter.consumeAtOnce('key')).toBeUndefined();
    } finally {
      await limiter.close();
    }
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
