// Data planes as listeners' agents (issue 53, items 3 to 5; docs/decisions.md#listeners): a key bound to a
// listener claims and reports on that listener's revisions only, a key of no listener on the deployments on
// none; woken by `dataPlaneWakeUps` across gateways (two services on one database here) and again after a
// gateway restart, without asking in a loop. Waits are for events; no time is asserted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPEND, CLAIM, REPORT, REPORT_DEPLOYMENT } from './support/data-plane.ts';
import { importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { dataOf } from './support/graphql-expect.ts';
import { buildWhenWoken, claimAll, newListener, planeKey, queuedOn, wakeUps } from './support/listener-planes.ts';
import { startLiveService, type LiveService } from './support/live-data.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import { ACME, GLOBEX } from './support/fixtures.ts';
import { restCaller, revisionNotFound, deploymentNotFound } from './support/write-calls.ts';

let db: TestDatabase;
const cipher = newCipher();
/** Two gateways on one database. */
let gatewayA: LiveService;
let gatewayB: LiveService;
let acmeWriter: string;
let globexWriter: string;
let listenerX: string;
let listenerY: string;
let listenerZ: string;
const keys = {} as Record<'x' | 'y' | 'acmeNone' | 'globexZ', string>;

const callA = restCaller(() => gatewayA.app.url, () => acmeWriter);
const callB = restCaller(() => gatewayB.app.url, () => acmeWriter);

beforeAll(async () => {
  db = await createTestDatabase();
  await importFixture(db.orm.em.fork(), cipher);
  acmeWriter = await issueKey(db.orm.em, [ACME], false, true);
  globexWriter = await issueKey(db.orm.em, [GLOBEX], false, true);
  gatewayA = await startLiveService(db, cipher);
  gatewayB = await startLiveService(db, cipher);
  listenerX = await newListener(callA, acmeWriter);
  listenerY = await newListener(callA, acmeWriter);
  listenerZ = await newListener(callA, globexWriter);
  keys.x = await planeKey(db.orm.em, [ACME], listenerX);
  keys.y = await planeKey(db.orm.em, [ACME], listenerY);
  keys.acmeNone = await planeKey(db.orm.em, [ACME], null);
  keys.globexZ = await planeKey(db.orm.em, [GLOBEX], listenerZ);
});
afterAll(async () => {
  await gatewayA?.close();
  await gatewayB?.close();
  await db?.drop();
});

describe('two listeners with a data plane each', () => {
  it('builds 200 revisions queued across them once each, by its own listener\'s data plane, woken across gateways', async () => {
    // X's data plane listens on gateway A, Y's on gateway B; the writes go through the other gateway.
    const [streamX, streamY] = await Promise.all([wakeUps(gatewayA.app.url, keys.x), wakeUps(gatewayB.app.url, keys.y)]);
    try {
      const builtX = buildWhenWoken(callA, streamX, keys.x, 100);
      const builtY = buildWhenWoken(callB, streamY, keys.y, 100);
      const [queuedX, queuedY] = await Promise.all([queuedOn(callB, acmeWriter, listenerX, 100), queuedOn(callA, acmeWriter, listenerY, 100)]);
      const [byX, byY] = await Promise.all([builtX, builtY]);
      expect(byX.toSorted()).toEqual(queuedX.toSorted());
      expect(byY.toSorted()).toEqual(queuedY.toSorted());
      const rows = await db.query<{ status: string; claims: number; claimed_by_x: boolean }>(
        `select r.status, l.claims, l.claimed_by = (select id from api_key where listener_id = $2) as claimed_by_x
         from revision r join revision_lease l on l.revision_id = r.id where r.id = any($1::uuid[])`, [[...queuedX, ...queuedY], listenerX],
      );
      expect(rows).toHaveLength(200);
      expect(rows.every((row) => row.status === 'DEPLOYED' && row.claims === 1)).toBe(true);
      expect(rows.filter((row) => row.claimed_by_x)).toHaveLength(100);
    } finally {
      streamX.close();
      streamY.close();
    }
  });
});

describe('a data plane of another listener or tenant', () => {
  it('claims none of X\'s revisions, and answers 404 to reports on them with X\'s own lease, on both doors', async () => {
    const [revision] = await queuedOn(callA, acmeWriter, listenerX, 1);
    // Only X's data plane gets it; the others find nothing of it.
    for (const key of [keys.y, keys.acmeNone, keys.globexZ]) expect(await claimAll(callA, key)).toEqual([]);
    const graphqlClaim = dataOf(await gatewayA.app.graphql(CLAIM, { 'x-api-key': keys.y }, { limit: 100 }));
    expect(graphqlClaim.claimRevisions.leases).toEqual([]);
    const [lease] = await claimAll(callA, keys.x);
    expect(lease!.revisionId).toBe(revision);
    const deploymentId = (await db.query<{ deployment_id: string }>('select deployment_id from revision where id = $1', [revision]))[0]!.deployment_id;

    for (const key of [keys.y, keys.acmeNone, keys.globexZ]) {
      const rest = [
        [`/v2/data-plane/revisions/${revision}/status`, { lease_id: lease!.leaseId, status: 'DEPLOY_FAILED' }, revisionNotFound(revision!)],
        [`/v2/data-plane/revisions/${revision}/logs`, { lease_id: lease!.leaseId, phase: 'build', first_line: 0, lines: [{ message: 'pwned' }] }, revisionNotFound(revision!)],
        [`/v2/data-plane/deployments/${deploymentId}/status`, { status: 'UNUSED', image_version: 'evil' }, deploymentNotFound(deploymentId!)],
      ] as const;
      for (const [path, body, refusal] of rest) {
        const answer = await callB('POST', path, { key, body });
        expect({ path, status: answer.status, json: answer.json }).toEqual({ path, status: 404, json: refusal });
      }
      const graphql = (query: string, variables: Record<string, unknown>) => gatewayB.app.graphql(query, { 'x-api-key': key }, variables);
      expect(dataOf(await graphql(REPORT, { input: { revisionId: revision, leaseId: lease!.leaseId, status: 'DEPLOY_FAILED' } })).reportRevisionStatus.__typename).toBe('RevisionNotFoundError');
      expect(dataOf(await graphql(APPEND, { input: { revisionId: revision, leaseId: lease!.leaseId, phase: 'BUILD', firstLine: 0, lines: [{ message: 'pwned' }] } })).appendRevisionLogs.__typename).toBe('RevisionNotFoundError');
      expect(dataOf(await graphql(REPORT_DEPLOYMENT, { input: { deploymentId, status: 'UNUSED' } })).reportDeploymentStatus.__typename).toBe('DeploymentNotFoundError');
    }
    const [stored] = await db.query<{ status: string; lines: number }>(
      'select r.status, (select count(*)::int from revision_log_line where revision_id = r.id) as lines from revision r where r.id = $1', [revision],
    );
    expect(stored).toEqual({ status: 'AWAITING_BUILD', lines: 0 });
    // X's own data plane reports on it.
    expect((await callB('POST', `/v2/data-plane/revisions/${revision}/status`, { key: keys.x, body: { lease_id: lease!.leaseId, status: 'DEPLOYED' } })).status).toBe(200);
  });

  it('a key of no listener keeps today\'s behaviour for deployments on none, which no listener\'s key claims', async () => {
    const [revision] = await queuedOn(callA, acmeWriter, null, 1);
    for (const key of [keys.x, keys.y]) expect(await claimAll(callA, key)).toEqual([]);
    expect((await claimAll(callA, keys.acmeNone)).map((lease) => lease.revisionId)).toEqual([revision]);
  });

  it('wakes only the data planes of the revision\'s tenant and listener', async () => {
    const streams = Object.fromEntries(await Promise.all((['x', 'y', 'acmeNone', 'globexZ'] as const).map(async (name) => [name, await wakeUps(gatewayA.app.url, keys[name])] as const)));
    try {
      // One announcement is handed to every stream it concerns at once; its own stream's event arriving means
      // the others have had their chance. A last revision on Z's listener flushes Z's stream the same way.
      await queuedOn(callB, acmeWriter, listenerX, 1);
      expect((await streams.x!.nextResult()).data.dataPlaneWakeUps).toEqual({ reason: 'QUEUED', tenantId: ACME });
      await queuedOn(callB, acmeWriter, null, 1);
      expect((await streams.acmeNone!.nextResult()).data.dataPlaneWakeUps).toEqual({ reason: 'QUEUED', tenantId: ACME });
      await queuedOn(callB, acmeWriter, listenerY, 1);
      expect((await streams.y!.nextResult()).data.dataPlaneWakeUps).toEqual({ reason: 'QUEUED', tenantId: ACME });
      await queuedOn(callB, globexWriter, listenerZ, 1);
      expect((await streams.globexZ!.nextResult()).data.dataPlaneWakeUps).toEqual({ reason: 'QUEUED', tenantId: GLOBEX });
      expect(streams.globexZ!.buffered).toEqual([]);
      // Y's stream had one event (its own) when Z's came: X's and the unbound revision woke no one else.
      expect(streams.y!.buffered).toEqual([]);
      expect(streams.x!.buffered).toEqual([]);
    } finally {
      for (const stream of Object.values(streams)) stream!.close();
    }
  });
});

describe('a gateway restart', () => {
  it('ends the stream; subscribed again, the data plane is woken for what was queued meanwhile and after', async () => {
    await claimAll(callA, keys.x);
    const stream = await wakeUps(gatewayA.app.url, keys.x);
    await gatewayA.close();
    await stream.ended;
    const whileDown = await queuedOn(callB, acmeWriter, listenerX, 1);
    gatewayA = await startLiveService(db, cipher);
    const again = await wakeUps(gatewayA.app.url, keys.x);
    try {
      expect((await claimAll(callA, keys.x)).map((lease) => lease.revisionId)).toEqual(whileDown);
      const afterRestart = await queuedOn(callB, acmeWriter, listenerX, 1);
      expect((await again.nextResult()).data.dataPlaneWakeUps).toEqual({ reason: 'QUEUED', tenantId: ACME });
      expect((await claimAll(callA, keys.x)).map((lease) => lease.revisionId)).toEqual(afterRestart);
    } finally {
      again.close();
    }
  });
});

describe('the listener\'s contact', () => {
  it('is reported by its data plane (claims, heartbeats with a version) and shown with online', async () => {
    const heartbeat = await callA('POST', '/v2/data-plane/heartbeat', { key: keys.y, body: { version: '1.4.0' } });
    expect(heartbeat.status, heartbeat.text).toBe(200);
    expect(heartbeat.json).toMatchObject({ listener_id: listenerY, version: '1.4.0', online: true });
    const listener = dataOf(await gatewayA.app.graphql('query ($id: ID!) { listener(id: $id) { version online lastContactAt } }', { 'x-api-key': acmeWriter }, { id: listenerY }));
    expect(listener.listener).toMatchObject({ version: '1.4.0', online: true });
    expect((await callA('GET', `/v2/listeners/${listenerY}`)).json.version).toBe('1.4.0');
    expect(await callA('POST', '/v2/data-plane/heartbeat', { key: keys.acmeNone, body: {} })).toMatchObject({ status: 403 });
  });
});
