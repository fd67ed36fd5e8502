// The life of a live-update stream: who may open one and how many, what ends it (a revoked key, a shutdown),
// what keeps it open (heartbeats, unbuffered through compression), what a subscriber is told when changes may
// have been missed (a lost LISTEN connection), the graphql-sse client, and several gateways on one database.
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainServer } from '../src/http/graceful-shutdown.ts';
import { RateLimiter } from '../src/limits/rate-limiter.ts';
import { createLogger } from '../src/observability/logger.ts';
import { displayPrefix } from '../src/modules/tenancy/api-key-secret.ts';
import { revokeApiKey } from '../src/modules/tenancy/api-key.service.ts';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { subscribe, type EventStream } from './support/event-stream.ts';
import { deploymentRecord, importDeployments, newDeploymentId, startLiveService, type LiveService } from './support/live-data.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const CHANGES = 'subscription { deploymentUpdated { kind deploymentId deployment { name status } } }';

let db: TestDatabase;
let service: LiveService;
const cipher = newCipher();
const services: LiveService[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  await importFixture(db.orm.em.fork(), cipher);
  service = await startLiveService(db, cipher);
  services.push(service);
});
afterAll(async () => {
  for (const started of services) await started.close();
  await db?.drop();
});

async function startAnother(setup: Parameters<typeof startLiveService>[2] = {}) {
  const another = await startLiveService(db, cipher, setup);
  services.push(another);
  return another;
}

/** Imports a new ACME deployment; returns its id. */
async function createDeployment(name: string) {
  const id = newDeploymentId();
  await importDeployments(db.orm.em, cipher, [deploymentRecord(id, ACME, name, 'READY')]);
  return id;
}

async function eventually(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < ms; await sleep(20)) if (await check()) return true;
  return false;
}

async function expectEnded(stream: EventStream, code: string) {
  const last = await stream.nextResult();
  expect(last).toMatchObject({ data: null, errors: [{ extensions: { code } }] });
  expect(await stream.next()).toEqual({ event: 'complete', data: '' });
  await stream.ended;
}

describe('who may stream, and how many', () => {
  it('refuses a subscription without a valid key (401) before anything is streamed', async () => {
    const stream = await subscribe(service.app.url, 'dmk_not_a_key', CHANGES);
    expect(stream.status).toBe(401);
    expect((await stream.nextResult()).errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('answers a subscription asked for as JSON with 406 NOT_ACCEPTABLE, and leaves no stream open', async () => {
    const key = await issueKey(db.orm.em, [ACME]);
    const response = await fetch(`${service.app.url}/graphql`, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': key }, body: JSON.stringify({ query: CHANGES }),
    });
    expect(response.status).toBe(406);
    expect((await response.json()).errors[0]).toMatchObject({ message: expect.stringContaining('Accept: text/event-stream'), extensions: { code: 'NOT_ACCEPTABLE' } });
    expect(service.app.app.deploymentChanges.size).toBe(0);
  });

  it('limits the open streams per API key, with TOO_MANY_SUBSCRIPTIONS beyond the limit; a closed stream frees its place', async () => {
    const limited = await startAnother({ options: { subscriptionsPerKey: 2 } });
    const key = await issueKey(db.orm.em, [ACME]);
    const first = await subscribe(limited.app.url, key, CHANGES);
    const second = await subscribe(limited.app.url, key, CHANGES);
    const third = await subscribe(limited.app.url, key, CHANGES);
    expect([first.status, second.status, third.status]).toEqual([200, 200, 429]);
    const refusal = await third.nextResult();
    expect(refusal.errors).toEqual([expect.objectContaining({
      message: 'Too many open subscriptions for this API key: at most 2 at a time; close one before opening another.',
      extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', limit: 2 },
    })]);
    // Another key has its own budget.
    const other = await subscribe(limited.app.url, await issueKey(db.orm.em, [ACME]), CHANGES);
    expect(other.status).toBe(200);
    first.close();
    expect(await eventually(() => limited.app.app.deploymentChanges.size === 2)).toBe(true);
    const again = await subscribe(limited.app.url, key, CHANGES);
    expect(again.status).toBe(200);
    for (const stream of [second, other, again]) stream.close();
    expect(await eventually(() => limited.app.app.deploymentChanges.size === 0)).toBe(true);
  });

  it('applies the cost limit to subscription documents', async () => {
    const key = await issueKey(db.orm.em, [ACME]);
    const chain = 'integration { repositories { integration { repositories { integration { repositories { name } } } } } }';
    const aliases = Array.from({ length: 7 }, (_, i) => `a${i}: deployment { ${chain} }`).join(' ');
    const stream = await subscribe(service.app.url, key, `subscription { deploymentUpdated { ${aliases} } }`);
    expect(stream.status).toBe(400);
    expect((await stream.nextResult()).errors[0]).toMatchObject({ message: expect.stringMatching(/^Query cost limit of 750000 exceeded/), extensions: { code: 'QUERY_TOO_COMPLEX' } });
    expect(service.app.app.deploymentChanges.size).toBe(0);
  });

  it('counts the subscribe request against the key\'s rate limit (not its events)', async () => {
    const limited = await startAnother({ rateLimiter: new RateLimiter({ perMinute: 2 }) });
    const key = await issueKey(db.orm.em, [ACME]);
    const first = await subscribe(limited.app.url, key, CHANGES);
    await createDeployment('live-rate-1');
    await createDeployment('live-rate-2');
    await createDeployment('live-rate-3');
    for (let i = 0; i < 3; i++) expect((await first.nextResult()).data.deploymentUpdated.kind).toBe('CREATED');
    const second = await subscribe(limited.app.url, key, CHANGES);
    const third = await subscribe(limited.app.url, key, CHANGES);
    expect([first.status, second.status, third.status]).toEqual([200, 200, 429]);
    expect((await third.nextResult()).errors[0].extensions.code).toBe('RATE_LIMITED');
    first.close();
    second.close();
  });
});

describe('what ends a stream', () => {
  it('ends the streams of a key revoked in this process, and refuses it afterwards', async () => {
    const key = await issueKey(db.orm.em, [ACME]);
    const [one, two] = [await subscribe(service.app.url, key, CHANGES), await subscribe(service.app.url, key, CHANGES)];
    const bystander = await subscribe(service.app.url, await issueKey(db.orm.em, [ACME]), CHANGES);
    await revokeApiKey(db.orm.em.fork(), displayPrefix(key));
    await expectEnded(one, 'UNAUTHENTICATED');
    await expectEnded(two, 'UNAUTHENTICATED');
    expect((await subscribe(service.app.url, key, CHANGES)).status).toBe(401);
    // Other keys' streams go on.
    const id = await createDeployment('live-after-revocation');
    expect((await bystander.nextResult()).data.deploymentUpdated.deploymentId).toBe(id);
    bystander.close();
  });

  it('ends the streams of a key revoked by another process (NOTIFY)', async () => {
    const key = await issueKey(db.orm.em, [ACME]);
    const stream = await subscribe(service.app.url, key, CHANGES);
    // What `npm run apikey -- revoke` does, from outside this process.
    await db.query(`with revoked as (update api_key set revoked_at = now() where prefix = $1 returning id)
      select pg_notify('api_key_revoked', id::text) from revoked`, [displayPrefix(key)]);
    await expectEnded(stream, 'UNAUTHENTICATED');
  });

  it('completes every open stream on graceful shutdown, without waiting for the grace period', async () => {
    const stopping = await startAnother();
    const key = await issueKey(db.orm.em, [ACME]);
    const streams = [await subscribe(stopping.app.url, key, CHANGES), await subscribe(stopping.app.url, key, CHANGES)];
    const { server, inFlight, deploymentChanges } = stopping.app.app;
    const drained = drainServer(server, inFlight, { delayMs: 0, graceMs: 60_000 }, createLogger('silent'), deploymentChanges).then(() => 'drained');
    for (const stream of streams) {
      expect(await stream.next(5000)).toEqual({ event: 'complete', data: '' });
      await stream.ended;
    }
    expect(await Promise.race([drained, sleep(10_000, 'still waiting')])).toBe('drained');
    expect(inFlight.size).toBe(0);
  });
});

describe('what keeps a stream going', () => {
  it('sends heartbeats while idle, unbuffered and uncompressed for a client that accepts compression', async () => {
    const key = await issueKey(db.orm.em, [ACME]);
    const stream = await subscribe(service.app.url, key, CHANGES, { headers: { 'accept-encoding': 'gzip, br, zstd' } });
    expect(stream.headers.get('content-encoding')).not.toMatch(/gzip|br|zstd/);
    expect(stream.headers.get('x-accel-buffering')).toBe('no');
    // Yoga's heartbeat is 12 s; 300 ms under NODE_ENV=test, as vitest runs.
    expect(await eventually(() => stream.comments >= 3)).toBe(true);
    stream.close();
  });

  it('tells every stream that changes may have been missed when the LISTEN connection was lost, and goes on', async () => {
    const own = await startAnother();
    const key = await issueKey(db.orm.em, [ACME]);
    const stream = await subscribe(own.app.url, key, CHANGES);
    const restored = new Promise((resolve) => own.notifications.once('listening', () => resolve(true)));
    // Every gateway's LISTEN connection on this database (the other streams of this file are closed).
    await db.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike 'LISTEN%'`);
    expect(await Promise.race([restored, sleep(15_000, false)])).toBe(true);
    expect((await stream.nextResult()).errors[0]).toMatchObject({ extensions: { code: 'CHANGES_MISSED', reason: 'reconnect' } });
    const id = await createDeployment('live-after-reconnect');
    expect((await stream.nextResult()).data.deploymentUpdated).toMatchObject({ kind: 'CREATED', deploymentId: id });
    stream.close();
  });
});

describe('clients and gateways', () => {
  it('serves the graphql-sse client (distinct connections mode) on /graphql', async () => {
    const key = await issueKey(db.orm.em, [ACME]);
    const client = createClient({ url: `${service.app.url}/graphql`, headers: { 'x-api-key': key }, retryAttempts: 0 });
    const changes = client.iterate<{ deploymentUpdated: { kind: string; deploymentId: string } }>({ query: CHANGES });
    try {
      expect(await eventually(() => service.app.app.deploymentChanges.size > 0)).toBe(true);
      const id = await createDeployment('live-graphql-sse');
      const { value } = await changes.next();
      expect(value).toEqual({ data: { deploymentUpdated: { kind: 'CREATED', deploymentId: id, deployment: { name: 'live-graphql-sse', status: 'READY' } } } });
    } finally {
      await changes.return?.();
      client.dispose();
    }
  });

  it('reaches the subscribers of every gateway on the database, each through its own LISTEN connection', async () => {
    const other = await startAnother();
    const key = await issueKey(db.orm.em, [ACME]);
    const here = await subscribe(service.app.url, key, CHANGES);
    const there = await subscribe(other.app.url, key, CHANGES);
    const id = await createDeployment('live-two-gateways');
    expect((await here.nextResult()).data.deploymentUpdated.deploymentId).toBe(id);
    expect((await there.nextResult()).data.deploymentUpdated.deploymentId).toBe(id);
    here.close();
    there.close();
  });
});
