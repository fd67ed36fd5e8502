// Read replicas against a real streaming replica (Debian's PostgreSQL, pg_basebackup): reads go to it, keys
// and live-update loads to the primary; a replica paused beyond REPLICA_MAX_LAG, or stopped, is taken out of
// rotation without users noticing, and put back once well. A conditional read is answered by the data its
// gateway reads: a paused replica never answers 304 to a tag of data it has not replayed.
import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabaseIfMissing, migrate } from '../../src/db/database.ts';
import { createOrmConfig, type AppOrm } from '../../src/db/orm-config.ts';
import { entities } from '../../src/modules/entities.ts';
import { SecretCipher } from '../../src/modules/secrets/secret-cipher.ts';
import { revokeApiKey } from '../../src/modules/tenancy/api-key.service.ts';
import { ACME, GLOBEX_DEPLOYMENT, importFixture, issueKey } from '../support/fixtures.ts';
import { deploymentRecord, importDeployments, newDeploymentId } from '../support/live-data.ts';
import { startService, type ServiceProcess } from '../support/service-process.ts';
import { subscribe } from '../support/event-stream.ts';
import { startStreamingPair, type StreamingPair } from '../support/streaming-replica.ts';

const SECRETS_KEY = randomBytes(32);
const cipher = new SecretCipher(SECRETS_KEY);
let pair: StreamingPair;
let primary: AppOrm;
let key: string;
/** Reads on the replica whatever its lag, and one that takes it out of rotation beyond a second. */
let patient: ServiceProcess;
let strict: ServiceProcess;

const env = (maxLag: number) => ({
  DATABASE_URL: pair.primaryUrl('gateway'), DATABASE_REPLICA_URLS: pair.replicaUrl('gateway'), REPLICA_MAX_LAG: String(maxLag),
  SECRETS_KEY: SECRETS_KEY.toString('base64'), SEED_DEMO_DATA: 'false',
});

const names = async (service: ServiceProcess, apiKey = key) => {
  const response = await fetch(service.url, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify({ query: '{ deployments(limit: 100) { resources { uuid name } } }' }),
  });
  const body = await response.json() as { data?: { deployments: { resources: { uuid: string; name: string }[] } } };
  return { status: response.status, ids: body.data?.deployments.resources.map((d) => d.uuid) ?? [] };
};
const restIds = async (service: ServiceProcess) => {
  const response = await fetch(new URL('/v2/deployments?limit=100', service.url), { headers: { 'x-api-key': key } });
  return { status: response.status, ids: ((await response.json()) as { resources: { id: string }[] }).resources.map((d) => d.id) };
};
/** The page by GET, with If-None-Match when given: its status, tag and ids (none on a 304). */
const conditionalPage = async (service: ServiceProcess, ifNoneMatch?: string) => {
  const response = await fetch(new URL('/v2/deployments?limit=100', service.url), { headers: { 'x-api-key': key, ...(ifNoneMatch && { 'if-none-match': ifNoneMatch }) } });
  const text = await response.text();
  return { status: response.status, etag: response.headers.get('etag'), ids: text ? (JSON.parse(text) as { resources: { id: string }[] }).resources.map((d) => d.id) : [] };
};
const ready = async (service: ServiceProcess) => {
  const response = await fetch(new URL('/ready', service.url));
  return { status: response.status, body: await response.json() as { replicas: { name: string; state: string; lagSeconds: number | null }[] } };
};
async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, ms = 8000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await probe();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await probe();
  }
  return value;
}
const addDeployment = async (name: string) => {
  const id = newDeploymentId();
  await importDeployments(primary.em.fork(), cipher, [deploymentRecord(id, ACME, name, 'READY')]);
  return id;
};

beforeAll(async () => {
  pair = await startStreamingPair();
  await createDatabaseIfMissing(pair.primaryUrl('postgres'), 'gateway');
  primary = (await MikroORM.init(createOrmConfig({ entities, clientUrl: pair.primaryUrl('gateway'), poolMax: 2 }))) as unknown as AppOrm;
  await migrate(primary);
  await importFixture(primary.em.fork(), cipher);
  key = await issueKey(primary.em, [ACME], true);
  // One at a time, each kept as soon as it runs: afterAll stops whatever started, also after a failure.
  patient = await startService(env(3600));
  strict = await startService(env(1));
  // Both start with the replica in rotation once it has replayed the set-up.
  for (const service of [patient, strict]) {
    expect((await eventually(() => ready(service), (r) => r.body.replicas[0]?.state === 'in rotation')).body.replicas[0]!.state).toBe('in rotation');
  }
}, 120_000);

afterAll(async () => {
  await Promise.all([patient, strict].filter(Boolean).map((service) => service.stop()));
  await primary?.close(true);
  await pair?.stop();
}, 60_000);

describe('read replicas', () => {
  it('serve the reads of both doors, while keys are read on the primary: a new key works, a revoked one does not', async () => {
    const revoked = await issueKey(primary.em, [ACME]);
    expect((await names(patient, revoked)).status).toBe(200); // now cached
    await pair.onReplica('select pg_wal_replay_pause()');
    try {
      const fresh = await issueKey(primary.em, [ACME]); // not on the paused replica
      expect((await names(patient, fresh)).status).toBe(200);
      await revokeApiKey(primary.em.fork(), revoked.slice(0, 12));
      expect((await eventually(() => names(patient, revoked), (r) => r.status === 401, 1000)).status).toBe(401);
      const added = await addDeployment('written-while-paused');
      // The replica has not replayed it: what the patient gateway lists came from the replica.
      const [graphql, rest] = [await names(patient), await restIds(patient)];
      expect(graphql.status).toBe(200);
      expect(graphql.ids.length).toBeGreaterThan(0);
      expect(graphql.ids).not.toContain(added);
      expect(rest.ids).not.toContain(added);
      // Another tenant's rows stay invisible on the replica as on the primary.
      expect([...graphql.ids, ...rest.ids]).not.toContain(GLOBEX_DEPLOYMENT);
      await pair.onReplica('select pg_wal_replay_resume()');
      expect((await eventually(() => names(patient), (r) => r.ids.includes(added))).ids).toContain(added);
    } finally {
      await pair.onReplica('select pg_wal_replay_resume()');
    }
  });

  it('load live updates from the primary: a change the paused replica has not replayed still reaches a subscriber', async () => {
    await pair.onReplica('select pg_wal_replay_pause()');
    const stream = await subscribe(new URL(patient.url).origin, key, 'subscription { deploymentUpdated { kind deploymentId deployment { name } } }');
    try {
      expect(stream.status).toBe(200);
      const added = await addDeployment('announced-while-paused');
      const { data } = await stream.nextResult(5000);
      expect(data.deploymentUpdated).toEqual({ kind: 'CREATED', deploymentId: added, deployment: { name: 'announced-while-paused' } });
    } finally {
      stream.close();
      await pair.onReplica('select pg_wal_replay_resume()');
    }
  });

  it('take a replica out of rotation while it lags beyond REPLICA_MAX_LAG, reads going to the primary, and back once caught up', async () => {
    await pair.onReplica('select pg_wal_replay_pause()');
    let added: string;
    try {
      added = await addDeployment('written-while-lagging');
      const lagging = await eventually(() => ready(strict), (r) => r.body.replicas[0]?.state === 'lagging');
      expect(lagging.status).toBe(200); // the primary serves: ready
      expect(lagging.body.replicas[0]).toMatchObject({ name: 'replica-1', state: 'lagging' });
      expect((await names(strict)).ids).toContain(added);
      const metrics = await (await fetch(new URL('/metrics', strict.url))).text();
      expect(metrics).toMatch(/db_replica_in_rotation\{replica="replica-1",state="lagging"\} 0/);
    } finally {
      await pair.onReplica('select pg_wal_replay_resume()');
    }
    const back = await eventually(() => ready(strict), (r) => r.body.replicas[0]?.state === 'in rotation');
    expect(back.body.replicas[0]).toMatchObject({ state: 'in rotation', lagSeconds: 0 });
  });

  it('never answer 304 to a tag newer than the data the replica has replayed, and honour each other\'s tags', async () => {
    const before = await eventually(() => conditionalPage(patient), (r) => r.status === 200);
    expect(before.etag).toMatch(/^"[0-9a-f]{24}"$/);
    // Another gateway (another process), the same data: the same tag.
    expect((await eventually(() => conditionalPage(strict, before.etag!), (r) => r.status === 304)).status).toBe(304);
    await pair.onReplica('select pg_wal_replay_pause()');
    let newer: Awaited<ReturnType<typeof conditionalPage>>;
    try {
      const added = await addDeployment('tagged-while-paused');
      // The strict gateway takes the lagging replica out of rotation and reads the primary: the new page, a new tag.
      newer = await eventually(() => conditionalPage(strict), (r) => r.ids.includes(added));
      expect(newer.ids).toContain(added);
      expect(newer.etag).not.toBe(before.etag);
      // The patient one reads the paused replica: the newer tag names data it does not have. It answers what it
      // has, with that data's tag; the old tag still names it.
      const onReplica = await conditionalPage(patient, newer.etag!);
      expect({ status: onReplica.status, etag: onReplica.etag, hasAdded: onReplica.ids.includes(added) }).toEqual({ status: 200, etag: before.etag, hasAdded: false });
      expect((await conditionalPage(patient, before.etag!)).status).toBe(304);
    } finally {
      await pair.onReplica('select pg_wal_replay_resume()');
    }
    // Replayed: the patient gateway honours the tag the strict one issued, and no longer the old one.
    expect((await eventually(() => conditionalPage(patient, newer.etag!), (r) => r.status === 304)).status).toBe(304);
    expect((await conditionalPage(patient, before.etag!)).status).toBe(200);
  });

  it('answer from the primary, never a 5xx, when the replica stops', async () => {
    await pair.stopReplica();
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? restIds(patient) : names(patient))));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(answers.every((a) => a.ids.length > 0)).toBe(true);
    const after = await eventually(() => ready(patient), (r) => r.body.replicas[0]?.state === 'unreachable');
    expect(after.status).toBe(200);
    expect(after.body.replicas[0]).toMatchObject({ state: 'unreachable', lagSeconds: null });
  });
});
