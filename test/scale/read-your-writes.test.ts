// Read your writes against a real streaming replica whose replay is paused: a key that has written reads its
// write on its next request, through another gateway (Redis), another worker of the gateway (the cluster
// primary) or the same process, while another key of the same tenant still reads the replica, without the
// write; once the replica has replayed the write, the writer's reads go back to the replica.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabaseIfMissing, migrate } from '../../src/db/database.ts';
import { createOrmConfig, type AppOrm } from '../../src/db/orm-config.ts';
import { entities } from '../../src/modules/entities.ts';
import { SecretCipher } from '../../src/modules/secrets/secret-cipher.ts';
import { ACME, importFixture, issueKey } from '../support/fixtures.ts';
import { deploymentRecord, importDeployments, newDeploymentId } from '../support/live-data.ts';
import { startRedis } from '../support/redis-server.ts';
import { startService, type ServiceProcess } from '../support/service-process.ts';
import { startStreamingPair, type StreamingPair } from '../support/streaming-replica.ts';

const SECRETS_KEY = randomBytes(32);
const cipher = new SecretCipher(SECRETS_KEY);
let pair: StreamingPair;
let primary: AppOrm;
let redis: Awaited<ReturnType<typeof startRedis>>;
/** Two gateways sharing write positions through Redis. */
let gatewayA: ServiceProcess;
let gatewayB: ServiceProcess;
/** A gateway of two workers without Redis: its cluster primary keeps the positions. */
let twoWorkers: ServiceProcess;
/** One process without Redis: its memory keeps them. */
let single: ServiceProcess;

// A paused replica stays in rotation for the hour: every read that does not see a write came from it.
const env = (more: Record<string, string>) => ({
  DATABASE_URL: pair.primaryUrl('gateway'), DATABASE_REPLICA_URLS: pair.replicaUrl('gateway'), REPLICA_MAX_LAG: '3600',
  SECRETS_KEY: SECRETS_KEY.toString('base64'), SEED_DEMO_DATA: 'false', MIGRATE_ON_START: 'false', LOG_LEVEL: 'warn', ...more,
});

interface Answer { status: number; body: any }

/** One request on a connection of its own: a gateway's cluster hands connections to its workers in turn. */
function call(service: ServiceProcess, method: string, path: string, key: string, body?: unknown): Promise<Answer> {
  const url = new URL(path, service.url);
  const text = body === undefined ? undefined : JSON.stringify(body);
  const headers: http.OutgoingHttpHeaders = { 'x-api-key': key, connection: 'close' };
  if (text) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  return new Promise((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, agent: false, timeout: 10_000 }, (response) => {
      let received = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (received += chunk));
      response.once('end', () => resolve({ status: response.statusCode!, body: received ? JSON.parse(received) : undefined }));
      response.once('error', reject);
    });
    request.once('timeout', () => request.destroy(new Error('timed out')));
    request.once('error', reject);
    request.end(text);
  });
}
const getDeployment = (service: ServiceProcess, key: string, id: string) => call(service, 'GET', `/v2/deployments/${id}`, key);
const listedIds = async (service: ServiceProcess, key: string) =>
  ((await call(service, 'POST', '/graphql', key, { query: '{ deployments(limit: 100) { resources { uuid } } }' })).body.data.deployments.resources as { uuid: string }[]).map((d) => d.uuid);
const create = async (service: ServiceProcess, key: string, name: string): Promise<string> => {
  const answer = await call(service, 'POST', '/v2/deployments', key, { name, source: 'internal_docker', source_config: {}, source_revision_config: {}, secrets: [] });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.id as string;
};
/** A write straight to the primary, which no gateway hears of. */
const writtenBehindTheGateways = async (name: string) => {
  const id = newDeploymentId();
  await importDeployments(primary.em.fork(), cipher, [deploymentRecord(id, ACME, name, 'READY')]);
  return id;
};
/** A writing key and another key of the same tenant, fresh for each test (positions are kept per key). */
const keys = async () => ({ writer: await issueKey(primary.em, [ACME], false, true), other: await issueKey(primary.em, [ACME]) });

async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await probe();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await probe();
  }
  return value;
}
async function whileReplayPaused<T>(body: () => Promise<T>): Promise<T> {
  await pair.onReplica('select pg_wal_replay_pause()');
  try {
    return await body();
  } finally {
    await pair.onReplica('select pg_wal_replay_resume()');
  }
}

beforeAll(async () => {
  pair = await startStreamingPair();
  await createDatabaseIfMissing(pair.primaryUrl('postgres'), 'gateway');
  primary = (await MikroORM.init(createOrmConfig({ entities, clientUrl: pair.primaryUrl('gateway'), poolMax: 2 }))) as unknown as AppOrm;
  await migrate(primary);
  await importFixture(primary.em.fork(), cipher);
  redis = await startRedis();
  // One at a time, each kept as soon as it runs: afterAll stops whatever started, also after a failure.
  gatewayA = await startService(env({ REDIS_URL: redis.url }));
  gatewayB = await startService(env({ REDIS_URL: redis.url }));
  twoWorkers = await startService(env({ WORKERS: '2' }));
  single = await startService(env({}));
  for (const service of [gatewayA, gatewayB, twoWorkers, single]) {
    await eventually(async () => (await call(service, 'GET', '/ready', '')).body.replicas[0].state, (state) => state === 'in rotation');
  }
}, 120_000);

afterAll(async () => {
  await Promise.all([gatewayA, gatewayB, twoWorkers, single].filter(Boolean).map((service) => service.stop()));
  await redis?.stop();
  await primary?.close(true);
  await pair?.stop();
}, 60_000);

describe('read your writes, the replica paused', () => {
  it.each([
    ['through another gateway (Redis)', () => gatewayA, () => gatewayB],
    ['through the other worker of a gateway (its cluster primary)', () => twoWorkers, () => twoWorkers],
    ['through the same process (its memory)', () => single, () => single],
  ])('a key reads its create on its next request %s; another key still reads the replica, without it', async (_how, writeAt, readAt) => {
    const { writer, other } = await keys();
    await whileReplayPaused(async () => {
      const id = await create(writeAt(), writer, `ryw-${randomBytes(4).toString('hex')}`);
      // Four times each, each on a connection of its own: both workers of a gateway of two answer.
      for (let i = 0; i < 4; i++) {
        expect((await getDeployment(readAt(), writer, id)).status).toBe(200);
        expect(await listedIds(readAt(), writer)).toContain(id);
        expect((await getDeployment(readAt(), other, id)).status).toBe(404);
      }
    });
  });

  it('a delete likewise; once the replica has replayed the writes, the writer reads the replica again', async () => {
    const { writer, other } = await keys();
    const deleted = await create(gatewayA, writer, 'ryw-deleted');
    expect((await eventually(() => getDeployment(gatewayB, other, deleted), (a) => a.status === 200)).status).toBe(200);
    const created = await whileReplayPaused(async () => {
      expect((await call(gatewayB, 'DELETE', `/v2/deployments/${deleted}`, writer)).status).toBe(204);
      expect((await getDeployment(gatewayA, writer, deleted)).status).toBe(404);
      expect((await getDeployment(gatewayA, other, deleted)).status).toBe(200); // the replica still has it
      const id = await create(gatewayB, writer, 'ryw-created');
      expect((await getDeployment(gatewayA, writer, id)).status).toBe(200);
      expect((await getDeployment(gatewayA, other, id)).status).toBe(404);
      return id;
    });
    expect((await eventually(() => getDeployment(gatewayA, other, created), (a) => a.status === 200)).status).toBe(200);
    expect((await getDeployment(gatewayA, other, deleted)).status).toBe(404);
    // Back on the replica once a probe has seen it replay the writes: a deployment written on the primary
    // behind the gateways while replay is paused again is not among what the writer reads.
    const onReplica = await eventually(() => whileReplayPaused(async () => {
      const unseen = await writtenBehindTheGateways(`ryw-behind-${randomBytes(4).toString('hex')}`);
      return (await getDeployment(gatewayB, writer, unseen)).status === 404 && (await getDeployment(gatewayA, writer, unseen)).status === 404;
    }), (yes) => yes);
    expect(onReplica).toBe(true);
  });
});
