// The deployment docs/deploying.md describes, on loopback: a PostgreSQL primary and a streaming replica,
// PgBouncer in transaction mode in front of the primary, a Redis of its own, two gateways of two workers each
// (`node src/main.ts`, as the image starts it) reading from the replica, and HAProxy in front with the
// documented health checks and retries. Compared with one plain gateway on the primary.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, ACME_DEPLOYMENT, importFixture } from '../support/fixtures.ts';
import { startHaproxy, type RunningHaproxy } from '../support/haproxy.ts';
import { startPgBouncer, type RunningPgBouncer } from '../support/pgbouncer.ts';
import { startRedis } from '../support/redis-server.ts';
import { runCliProcess, startService, type ServiceProcess } from '../support/service-process.ts';
import { startStreamingPair, type StreamingPair } from '../support/streaming-replica.ts';
import { SecretCipher } from '../../src/modules/secrets/secret-cipher.ts';
import { MikroORM } from '@mikro-orm/postgresql';
import { createDatabaseIfMissing, migrate } from '../../src/db/database.ts';
import { createOrmConfig, type AppOrm } from '../../src/db/orm-config.ts';
import { entities } from '../../src/modules/entities.ts';

const SECRETS_KEY = randomBytes(32);
/** Per key and minute, for the whole deployment (Redis): high enough for the load below, spent on purpose once. */
const BUDGET = 3000;
let pair: StreamingPair;
let primary: AppOrm;
let bouncer: RunningPgBouncer;
let redis: Awaited<ReturnType<typeof startRedis>>;
let gateways: ServiceProcess[];
let plain: ServiceProcess;
let haproxy: RunningHaproxy;

const base = () => ({ SECRETS_KEY: SECRETS_KEY.toString('base64'), SEED_DEMO_DATA: 'false', RATE_LIMIT_PER_MINUTE: String(BUDGET) });
const directUrl = () => pair.primaryUrl('gateway');
const gatewayEnv = () => ({
  ...base(), DATABASE_URL: bouncer.url, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: directUrl(), REDIS_URL: redis.url,
  DATABASE_REPLICA_URLS: pair.replicaUrl('gateway'),
  WORKERS: '2', MIGRATE_ON_START: 'false', SHUTDOWN_DELAY_SECONDS: '2', LOG_LEVEL: 'warn',
});
const origin = (service: { url: string }) => new URL(service.url).origin;

async function cli(script: string, args: string[]): Promise<string> {
  const { code, output } = await runCliProcess(script, args, { ...base(), DATABASE_URL: bouncer.url, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: directUrl() });
  expect(code, output).toBe(0);
  return output;
}

async function newKey(): Promise<{ key: string; prefix: string }> {
  const output = await cli('src/cli/apikey.ts', ['create', '--tenant', ACME, '--read-secrets', '--name', 'topology']);
  return { key: /^(dmk_\S+)$/m.exec(output)![1]!, prefix: /Created API key (\S+)/.exec(output)![1]! };
}

interface Answer { status: number; body: string }

/** One request on a connection of its own: a gateway's cluster hands connections to its workers in turn. */
function send(at: string, path: string, key: string, body?: string, extra: http.OutgoingHttpHeaders = {}, seen?: (headers: http.IncomingHttpHeaders) => void): Promise<Answer> {
  const url = new URL(path, at);
  const headers: http.OutgoingHttpHeaders = { 'x-api-key': key, connection: 'close', ...extra };
  if (body) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  return new Promise((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: body ? 'POST' : 'GET', headers, agent: false, timeout: 10_000 }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.once('end', () => {
        seen?.(response.headers);
        resolve({ status: response.statusCode!, body: text });
      });
      response.once('error', reject);
    });
    request.once('timeout', () => request.destroy(new Error('timed out')));
    request.once('error', reject);
    request.end(body);
  });
}
const get = (at: string, path: string, key: string) => send(at, path, key);
const post = (at: string, query: string, key: string) => send(at, '/graphql', key, JSON.stringify({ query }));

beforeAll(async () => {
  pair = await startStreamingPair();
  await createDatabaseIfMissing(pair.primaryUrl('postgres'), 'gateway');
  primary = (await MikroORM.init(createOrmConfig({ entities, clientUrl: directUrl(), poolMax: 2 }))) as unknown as AppOrm;
  await migrate(primary);
  await importFixture(primary.em.fork(), new SecretCipher(SECRETS_KEY));
  // One at a time, each kept as soon as it runs: afterAll stops whatever started, also after a failure.
  bouncer = await startPgBouncer(directUrl(), { serverConnections: 4 });
  redis = await startRedis();
  gateways = [];
  for (let i = 0; i < 2; i++) gateways.push(await startService(gatewayEnv()));
  plain = await startService({ ...base(), DATABASE_URL: directUrl() });
  // The gateways read from the replica once it is in rotation (it has replayed the set-up): waited for, not
  // given up on after a while, or the tests below would run on a topology not yet there.
  for (const gateway of gateways) {
    for (const deadline = Date.now() + 90_000; ;) {
      const ready = await (await fetch(new URL('/ready', gateway.url))).text();
      if (ready.includes('"in rotation"')) break;
      if (Date.now() > deadline) throw new Error(`the replica is not in rotation at ${gateway.url}: ${ready}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  haproxy = await startHaproxy(gateways.map(origin));
}, 120_000);

afterAll(async () => {
  await haproxy?.stop();
  await Promise.all([...(gateways ?? []), plain].filter(Boolean).map((service) => service.stop()));
  await redis?.stop();
  await bouncer?.stop();
  await primary?.close(true);
  await pair?.stop();
}, 60_000);

const READS: Array<(at: string, key: string) => Promise<Answer>> = [
  (at, key) => post(at, '{ deployments(limit: 20) { offset resources { uuid name status secrets { name value } secretReferences { name } sourceConfig { resourceSpec { cpu memoryMb } } latestRevision { status } } } }', key),
  (at, key) => post(at, '{ tenant { name } }', key),
  (at, key) => get(at, '/v2/deployments?limit=20', key),
  (at, key) => get(at, `/v2/deployments/${ACME_DEPLOYMENT}`, key),
  (at, key) => get(at, `/v2/deployments/${ACME_DEPLOYMENT}/revisions`, key),
  (at, key) => get(at, '/v1/integrations/codehost/install', key),
  (at, key) => get(at, '/v2/deployments/00000000-0000-4000-8000-000000000000', key),
];

describe('two gateways of two workers behind HAProxy, PgBouncer, Redis and a streaming replica', () => {
  it('answers every read exactly as one plain gateway does, on both doors, secrets included', async () => {
    const { key } = await newKey();
    for (const read of READS) {
      const expected = await read(origin(plain), key);
      // Several times: HAProxy spreads them over both gateways, and each gateway over its workers.
      for (let i = 0; i < 4; i++) expect(await read(haproxy.url, key)).toEqual(expected);
    }
  });

  it('honours a tag any gateway issued on every gateway and worker, and no longer once its writer changed the data', async () => {
    const output = await cli('src/cli/apikey.ts', ['create', '--tenant', ACME, '--write', '--name', 'topology-writer']);
    const writer = /^(dmk_\S+)$/m.exec(output)![1]!;
    const page = '/v2/deployments?limit=20';
    let etag = '';
    expect((await send(origin(plain), page, writer, undefined, {}, (headers) => (etag = String(headers.etag)))).status).toBe(200);
    expect(etag).toMatch(/^"[0-9a-f]{24}"$/);
    // The replica has replayed the set-up: the same data everywhere, so the plain gateway's tag names every answer.
    for (let i = 0; i < 8; i++) expect((await send(haproxy.url, page, writer, undefined, { 'if-none-match': etag })).status).toBe(304);
    const patch = JSON.stringify({ source_config: { install_command: `make ${Date.now()}` } });
    const patched = await new Promise<number>((resolve, reject) => {
      const request = http.request(new URL(`/v2/deployments/${ACME_DEPLOYMENT}`, haproxy.url), {
        method: 'PATCH', headers: { 'x-api-key': writer, 'content-type': 'application/json', 'content-length': Buffer.byteLength(patch), connection: 'close' },
      }, (response) => response.resume().once('end', () => resolve(response.statusCode!)));
      request.once('error', reject);
      request.end(patch);
    });
    expect(patched).toBe(200);
    // Its writer reads its write at once (read your writes), on every gateway and worker: never the old tag's 304.
    for (let i = 0; i < 8; i++) expect((await send(haproxy.url, page, writer, undefined, { 'if-none-match': etag })).status).toBe(200);
  });

  it('takes a key created a moment ago at once, and refuses it everywhere once revoked, while still cached', async () => {
    const { key, prefix } = await newKey();
    const everywhere = [haproxy.url, ...gateways.map(origin)];
    for (const at of everywhere) for (let i = 0; i < 3; i++) expect((await post(at, '{ tenant { name } }', key)).status).toBe(200);
    await cli('src/cli/apikey.ts', ['revoke', prefix]);
    const refusedEverywhere = async () => (await Promise.all(everywhere.flatMap((at) => [1, 2, 3].map(() => post(at, '{ tenant { name } }', key)))))
      .every((answer) => answer.status === 401);
    // However slow the machine, but well within the minute each worker caches the key (api-key-cache.ts):
    // only the revocation's NOTIFY can have ended it.
    await expect.poll(refusedEverywhere, { timeout: 30_000, interval: 50 }).toBe(true);
  });

  it('holds a key to its budget across both gateways and all workers (Redis), not four times it', async () => {
    const { key } = await newKey();
    const statuses: number[] = [];
    // In waves, alternating the gateways directly, so that every worker takes part.
    for (let wave = 0; wave < 32; wave++) {
      statuses.push(...(await Promise.all(Array.from({ length: 100 }, (_, i) => post(origin(gateways[i % 2]!), '{ tenant { name } }', key)))).map((a) => a.status));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(BUDGET);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3200 - BUDGET);
  }, 60_000);

  it('prints the throughput of one gateway and of the whole topology', async () => {
    // Four keys in turn for each run, and no more requests than their budgets hold together: what limits the
    // rate is the topology, never a key's budget, however fast the machine (a run of 3 s used to be the limit,
    // until a machine sent more than four budgets' worth in it: CI, 2026-11-27).
    const requestsPerRun = 4 * (BUDGET - 100);
    const keysOf = () => Promise.all([newKey(), newKey(), newKey(), newKey()]);
    const body = JSON.stringify({ query: '{ deployments(limit: 20) { resources { uuid name status } } }' });
    const rate = async (url: string) => {
      const keys = await keysOf();
      return (await autocannon({
      url: `${url}/graphql`, connections: 8, amount: requestsPerRun,
        requests: keys.map(({ key }) => ({ method: 'POST' as const, path: '/graphql', headers: { 'content-type': 'application/json', 'x-api-key': key }, body })),
      })) as autocannon.Result;
    };
    const one = await rate(origin(gateways[0]!));
    const all = await rate(haproxy.url);
    console.log([
      `| Light page (20 items), 8 connections, ${requestsPerRun} requests | req/s | p99 ms | non-2xx |`,
      '|---|---:|---:|---:|',
      `| one gateway (2 workers), directly | ${Math.round(one.requests.average)} | ${one.latency.p99} | ${one.non2xx} |`,
      `| HAProxy → 2 gateways × 2 workers → replica (PgBouncer → primary for keys) | ${Math.round(all.requests.average)} | ${all.latency.p99} | ${all.non2xx} |`,
    ].join('\n'));
    expect(one.errors + all.errors + one.non2xx + all.non2xx).toBe(0);
  }, 90_000);

  it('loses no request and answers no 5xx while the replica, then a gateway, is stopped under steady load', async () => {
    const PER_PHASE = 50;
    const keys = await Promise.all([newKey(), newKey(), newKey(), newKey()]);
    const answers: number[] = [];
    let running = true;
    let answered = () => {};
    /** Resolves once `count` more answers are in: each phase is served under load, not just given a second. */
    const served = (count: number) => new Promise<void>((resolve) => {
      const total = answers.length + count;
      answered = () => { if (answers.length >= total) resolve(); };
    });
    const client = async (key: string) => {
      while (running) {
        try {
          answers.push((await get(haproxy.url, '/v2/deployments?limit=5', key)).status);
        } catch {
          answers.push(0); // lost: no answer at all
        }
        answered();
      }
    };
    const clients = keys.map(({ key }) => client(key));
    await served(PER_PHASE);
    await pair.stopReplica(); // reads fall back to the primary
    await served(PER_PHASE);
    const stopping = gateways[0]!.stop(); // SIGTERM: not ready, serves 2 s more, drains, exits
    expect(await stopping).toBe(0);
    await served(PER_PHASE); // by the other gateway alone
    running = false;
    await Promise.all(clients);
    expect(answers.length).toBeGreaterThanOrEqual(3 * PER_PHASE);
    expect(answers.filter((status) => status !== 200)).toEqual([]);
  }, 30_000);
});
