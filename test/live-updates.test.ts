// Live deployment updates: `subscription { deploymentUpdated }` over Server-Sent Events, fed by the database's
// own triggers through the process's LISTEN connection. Real PostgreSQL, real HTTP, changes written by the real
// importer. Deadlines bound the waits (a busy machine is slow, not wrong); they are not speed claims, except
// the issue's 1 s for a change and for a revocation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayPrefix } from '../src/modules/tenancy/api-key-secret.ts';
import { revokeApiKey } from '../src/modules/tenancy/api-key.service.ts';
import { ACME, ACME_DEPLOYMENT, GLOBEX, GLOBEX_DEPLOYMENT, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { fixtureDocument, handMadeGlobalId } from './support/graphql-expect.ts';
import { subscribe, type EventStream } from './support/event-stream.ts';
import {
  deleteDeployment, deploymentRecord, importDeployments, newDeploymentId, startLiveService, type LiveService,
} from './support/live-data.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

/** The issue's bound for a change (and a revocation) to reach an open stream. */

const CHANGES = `subscription Changes($filter: DeploymentFilter) {
  deploymentUpdated(filter: $filter) { kind deploymentId deployment { uuid name status } }
}`;

let db: TestDatabase;
let service: LiveService;
const cipher = newCipher();
let acmeKey: string;
let acmeSecretsKey: string;
let globexKey: string;
let statements: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase({ onQuery: (sql) => statements.push(sql) });
  await importFixture(db.orm.em.fork(), cipher);
  [acmeKey, acmeSecretsKey, globexKey] = await Promise.all([
    issueKey(db.orm.em, [ACME]), issueKey(db.orm.em, [ACME], true), issueKey(db.orm.em, [GLOBEX]),
  ]);
  service = await startLiveService(db, cipher);
});
afterAll(async () => {
  await service?.close();
  await db?.drop();
});

const url = () => service.app.url;
const streams: EventStream[] = [];
async function open(key: string, query = CHANGES, variables?: Record<string, unknown>, headers?: Record<string, string>) {
  const stream = await subscribe(url(), key, query, { variables, headers });
  streams.push(stream);
  return stream;
}
const closeAll = () => streams.splice(0).forEach((stream) => stream.close());

/**
 * Imports ACME deployments, and returns once their changes have gone past the feed: a change committed before
 * a stream opens may still reach it when its notification arrives after the stream opened.
 */
async function importBeforeStreams(records: ReturnType<typeof deploymentRecord>[]) {
  const ids = records.map((record) => record.id);
  const passing = await subscribe(url(), acmeKey, CHANGES, { variables: { filter: { ids } } });
  try {
    await importDeployments(db.orm.em, cipher, records);
    const seen = new Set<string>();
    while (seen.size < ids.length) seen.add((await passing.nextResult()).data.deploymentUpdated.deploymentId);
  } finally {
    passing.close();
  }
}

/** The fixture's ACME deployment record with `changes`. */
function acmeDeployment(changes: Record<string, unknown>) {
  const record = fixtureDocument().deployments!.find((d) => d.id === ACME_DEPLOYMENT)!;
  return { ...record, ...changes };
}

describe('deploymentUpdated over Server-Sent Events', () => {
  it('delivers a status change made by an import, as the deployment after the change', async () => {
    const stream = await open(acmeKey);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await importDeployments(db.orm.em, cipher, [acmeDeployment({ status: 'AWAITING_DATABASE' })]);
      const result = await stream.nextResult();
      expect(result).toEqual({
        data: { deploymentUpdated: { kind: 'UPDATED', deploymentId: ACME_DEPLOYMENT, deployment: { uuid: ACME_DEPLOYMENT, name: 'checkout-prod', status: 'AWAITING_DATABASE' } } },
      });
      await importDeployments(db.orm.em, cipher, [acmeDeployment({ status: 'READY' })]);
      expect((await stream.nextResult()).data.deploymentUpdated.deployment.status).toBe('READY');
    } finally {
      closeAll();
    }
  });

  it('announces a new deployment as CREATED, and a change to its revisions or tags as UPDATED', async () => {
    const stream = await open(acmeKey);
    const id = newDeploymentId();
    try {
      await importDeployments(db.orm.em, cipher, [deploymentRecord(id, ACME, 'live-created', 'UNKNOWN')]);
      expect((await stream.nextResult()).data.deploymentUpdated).toMatchObject({ kind: 'CREATED', deploymentId: id, deployment: { name: 'live-created' } });
      await importDeployments(db.orm.em, cipher, [deploymentRecord(id, ACME, 'live-created', 'UNKNOWN', {
        revisions: [{ id: newDeploymentId(), status: 'DEPLOYING', created_at: '2026-02-01T00:01:00Z' }],
      })]);
      expect((await stream.nextResult()).data.deploymentUpdated).toMatchObject({ kind: 'UPDATED', deploymentId: id });
      await importDeployments(db.orm.em, cipher, [deploymentRecord(id, ACME, 'live-created', 'UNKNOWN', {
        tag_value_ids: ['77777777-7777-4777-8777-777777777772'],
      })]);
      expect((await stream.nextResult()).data.deploymentUpdated).toMatchObject({ kind: 'UPDATED', deploymentId: id });
    } finally {
      closeAll();
    }
  });

  it('sends nothing for a write that changes nothing (an import of the same record, an UPDATE to the same values)', async () => {
    const stream = await open(acmeKey);
    const marker = newDeploymentId();
    try {
      await importDeployments(db.orm.em, cipher, [acmeDeployment({})]);
      await db.query('update deployment set status = status, source_config = source_config where id = $1', [ACME_DEPLOYMENT]);
      await db.query('update secret set position = position where deployment_id = $1', [ACME_DEPLOYMENT]);
      // Something that does change, after it: the first event is that one.
      await importDeployments(db.orm.em, cipher, [deploymentRecord(marker, ACME, 'live-marker', 'UNKNOWN')]);
      expect((await stream.nextResult()).data.deploymentUpdated.deploymentId).toBe(marker);
    } finally {
      closeAll();
    }
  });

  it('gives another tenant\'s subscriber nothing, also when its filter names the other tenant\'s deployment', async () => {
    const globex = await open(globexKey);
    const acme = await open(acmeKey);
    const prying = await open(acmeKey, CHANGES, { filter: { ids: [handMadeGlobalId('Deployment', GLOBEX_DEPLOYMENT), ACME_DEPLOYMENT] } });
    const globexRecord = fixtureDocument().deployments!.find((d) => d.id === GLOBEX_DEPLOYMENT)!;
    try {
      await importDeployments(db.orm.em, cipher, [acmeDeployment({ status: 'UNUSED' })]);
      expect((await acme.nextResult()).data.deploymentUpdated.deploymentId).toBe(ACME_DEPLOYMENT);
      await importDeployments(db.orm.em, cipher, [{ ...globexRecord, status: 'READY' }]);
      // GLOBEX's first event is its own change, not ACME's earlier one.
      expect((await globex.nextResult()).data.deploymentUpdated).toMatchObject({ deploymentId: GLOBEX_DEPLOYMENT, deployment: { status: 'READY' } });
      // The prying stream got ACME's change, and nothing of GLOBEX's: an ACME change after it comes next.
      expect((await prying.nextResult()).data.deploymentUpdated.deploymentId).toBe(ACME_DEPLOYMENT);
      await importDeployments(db.orm.em, cipher, [acmeDeployment({ status: 'READY' })]);
      expect((await prying.nextResult()).data.deploymentUpdated).toMatchObject({ deploymentId: ACME_DEPLOYMENT, deployment: { status: 'READY' } });
      expect(prying.buffered).toEqual([]);
    } finally {
      await importDeployments(db.orm.em, cipher, [{ ...globexRecord }]);
      closeAll();
    }
  });

  it('gives a filtered subscriber only deployments that match its filter after the change', async () => {
    const [ready, unused] = [newDeploymentId(), newDeploymentId()];
    await importBeforeStreams([
      deploymentRecord(ready, ACME, 'live-filter-ready', 'READY'), deploymentRecord(unused, ACME, 'live-filter-unused', 'UNUSED'),
    ]);
    const filtered = await open(acmeKey, CHANGES, { filter: { statuses: ['READY'], nameContains: 'LIVE-FILTER' } });
    try {
      // Leaves the filter: nothing. Another name: nothing. Enters the filter: delivered.
      await importDeployments(db.orm.em, cipher, [deploymentRecord(ready, ACME, 'live-filter-ready', 'UNUSED')]);
      await importDeployments(db.orm.em, cipher, [deploymentRecord(newDeploymentId(), ACME, 'elsewhere', 'READY')]);
      await importDeployments(db.orm.em, cipher, [deploymentRecord(unused, ACME, 'live-filter-unused', 'READY')]);
      expect((await filtered.nextResult()).data.deploymentUpdated).toEqual({
        kind: 'UPDATED', deploymentId: unused, deployment: { uuid: unused, name: 'live-filter-unused', status: 'READY' },
      });
      expect(filtered.buffered).toEqual([]);
    } finally {
      closeAll();
    }
  });

  it('matches a tag filter as the listing does', async () => {
    const [tagged, untagged] = [newDeploymentId(), newDeploymentId()];
    const staging = '77777777-7777-4777-8777-777777777772';
    const filtered = await open(acmeKey, CHANGES, { filter: { tagValueIds: [staging] } });
    try {
      await importDeployments(db.orm.em, cipher, [deploymentRecord(untagged, ACME, 'live-untagged', 'READY')]);
      await importDeployments(db.orm.em, cipher, [deploymentRecord(tagged, ACME, 'live-tagged', 'READY', { tag_value_ids: [staging] })]);
      expect((await filtered.nextResult()).data.deploymentUpdated).toMatchObject({ kind: 'CREATED', deploymentId: tagged });
      expect(filtered.buffered).toEqual([]);
    } finally {
      closeAll();
    }
  });

  it('announces a deletion as DELETED without a deployment, except to a stream whose ids leave it out', async () => {
    const [doomed, kept] = [newDeploymentId(), newDeploymentId()];
    await importBeforeStreams([
      deploymentRecord(doomed, ACME, 'live-doomed', 'READY', { secrets: [{ name: 'TOKEN', value: 'x' }] }),
      deploymentRecord(kept, ACME, 'live-kept', 'READY'),
    ]);
    const all = await open(acmeKey);
    const byStatus = await open(acmeKey, CHANGES, { filter: { statuses: ['UNUSED'] } });
    const others = await open(acmeKey, CHANGES, { filter: { ids: [kept] } });
    const globex = await open(globexKey);
    try {
      await deleteDeployment(db, doomed);
      expect((await all.nextResult()).data.deploymentUpdated).toEqual({ kind: 'DELETED', deploymentId: doomed, deployment: null });
      expect((await byStatus.nextResult()).data.deploymentUpdated).toEqual({ kind: 'DELETED', deploymentId: doomed, deployment: null });
      await importDeployments(db.orm.em, cipher, [deploymentRecord(kept, ACME, 'live-kept', 'UNUSED')]);
      expect((await others.nextResult()).data.deploymentUpdated).toMatchObject({ kind: 'UPDATED', deploymentId: kept });
      // Another tenant hears of neither: its first event is its own deployment's change.
      const globexRecord = fixtureDocument().deployments!.find((d) => d.id === GLOBEX_DEPLOYMENT)!;
      await importDeployments(db.orm.em, cipher, [{ ...globexRecord, name: 'renamed-live' }]);
      expect((await globex.nextResult()).data.deploymentUpdated.deploymentId).toBe(GLOBEX_DEPLOYMENT);
      await importDeployments(db.orm.em, cipher, [globexRecord]);
    } finally {
      closeAll();
    }
  });

  it('masks secret values without the read-secrets scope, exactly as queries do', async () => {
    const query = 'subscription { deploymentUpdated { deployment { secrets { name value } } } }';
    const masked = await open(acmeKey, query);
    const readable = await open(acmeSecretsKey, query);
    const id = newDeploymentId();
    try {
      await importDeployments(db.orm.em, cipher, [deploymentRecord(id, ACME, 'live-secrets', 'READY', { secrets: [{ name: 'API_TOKEN', value: 'tok_live_123' }] })]);
      expect((await masked.nextResult()).data.deploymentUpdated.deployment.secrets).toEqual([{ name: 'API_TOKEN', value: null }]);
      expect((await readable.nextResult()).data.deploymentUpdated.deployment.secrets).toEqual([{ name: 'API_TOKEN', value: 'tok_live_123' }]);
      // A later change is read afresh: nothing of the first event's reading is kept for the next.
      await importDeployments(db.orm.em, cipher, [deploymentRecord(id, ACME, 'live-secrets', 'READY', { secrets: [{ name: 'API_TOKEN', value: 'tok_live_456' }] })]);
      expect((await masked.nextResult()).data.deploymentUpdated.deployment.secrets).toEqual([{ name: 'API_TOKEN', value: null }]);
      expect((await readable.nextResult()).data.deploymentUpdated.deployment.secrets).toEqual([{ name: 'API_TOKEN', value: 'tok_live_456' }]);
    } finally {
      closeAll();
    }
  });

  it('loads a large import\'s changes a chunk at a time: one statement per relation and chunk, not per event', async () => {
    const query = 'subscription { deploymentUpdated { kind deployment { uuid secrets { name } tagValues { value } latestRevision { status } } } }';
    const stream = await open(acmeKey, query);
    const count = 150;
    const records = Array.from({ length: count }, (_, i) => {
      const id = newDeploymentId();
      const revision = newDeploymentId();
      return deploymentRecord(id, ACME, `live-bulk-${i}`, 'READY', {
        secrets: [{ name: 'S', value: String(i) }], tag_value_ids: ['77777777-7777-4777-8777-777777777771'],
        latest_revision_id: revision, revisions: [{ id: revision, status: 'DEPLOYED', created_at: '2026-02-01T00:01:00Z' }],
      });
    });
    try {
      await importDeployments(db.orm.em, cipher, records);
      statements = [];
      const received = [];
      for (let i = 0; i < count; i++) received.push((await stream.nextResult(10_000)).data.deploymentUpdated);
      expect(received.map((change) => change.kind)).toEqual(Array(count).fill('CREATED'));
      expect(received.map((change) => change.deployment.secrets)).toEqual(Array(count).fill([{ name: 'S' }]));
      expect(received.every((change) => change.deployment.tagValues[0].value === 'prod' && change.deployment.latestRevision.status === 'DEPLOYED')).toBe(true);
      // Chunks of 100 (two here, three if the notifications were split across windows): per chunk one statement
      // for the rows, secrets, revisions, and two for the tags (populate reads the deployments, then the links),
      // as for a page. One per event would be 600.
      const reads = statements.filter((sql) => /^\s*(select|with)/i.test(sql));
      expect(reads.length, reads.join('\n')).toBeLessThanOrEqual(3 * 5);
    } finally {
      closeAll();
    }
  });
});
