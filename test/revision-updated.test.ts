// `subscription { revisionUpdated(deploymentId:) }` over Server-Sent Events (issue 43 item 3): a client waits for
// its revision here instead of polling. Every status change of the deployment's revisions arrives, in the order it
// was committed, with the status it left: a new revision QUEUED (from a PATCH), the claim, each report, a queued
// revision superseded (SKIPPED), a lapsed lease recovered (QUEUED again, or INTERRUPTED). Only that deployment's,
// only to its tenant, from reports made through any gateway on the database. Two gateways (two apps with a LISTEN
// connection each) share one database; writes and reports go through the first, subscribers mostly listen on the
// second. Waits are bounded (a slow machine is slow, not wrong); nothing here asserts a duration.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recoverLapsedLeases } from '../src/modules/revisions/lifecycle/lease-expiry.ts';
import { subscribe, type EventStream } from './support/event-stream.ts';
import { ACME, GLOBEX, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { handMadeGlobalId } from './support/graphql-expect.ts';
import { startLiveService, type LiveService } from './support/live-data.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import { restCaller, UNKNOWN_ID } from './support/write-calls.ts';

const TRANSITIONS = `subscription Transitions($id: ID!) {
  revisionUpdated(deploymentId: $id) { revisionId deploymentId previousStatus status at revision { status statusMessage updatedAt } }
}`;

let db: TestDatabase;
const cipher = newCipher();
/** Writes and reports go through `gateway`; subscribers listen on `other` unless a test says otherwise. */
let gateway: LiveService;
let other: LiveService;
const keys = {} as Record<'writer' | 'plane' | 'reader' | 'globexWriter' | 'globexPlane' | 'globexReader', string>;

beforeAll(async () => {
  db = await createTestDatabase();
  await importFixture(db.orm.em.fork(), cipher);
  Object.assign(keys, {
    writer: await issueKey(db.orm.em, [ACME], false, true),
    plane: await issueKey(db.orm.em, [ACME], false, false, true),
    reader: await issueKey(db.orm.em, [ACME]),
    globexWriter: await issueKey(db.orm.em, [GLOBEX], false, true),
    globexPlane: await issueKey(db.orm.em, [GLOBEX], false, false, true),
    globexReader: await issueKey(db.orm.em, [GLOBEX]),
  });
  gateway = await startLiveService(db, cipher);
  other = await startLiveService(db, cipher);
});
const started: LiveService[] = [];
afterAll(async () => {
  for (const service of [...started, other, gateway]) await service?.close();
  await db?.drop();
});

const streams: EventStream[] = [];
afterEach(() => streams.splice(0).forEach((stream) => stream.close()));

/** A stream of the deployment's transitions, on the other gateway unless `on` is given. */
async function transitions(deploymentId: string, key = keys.reader, on: LiveService = other): Promise<EventStream> {
  const stream = await subscribe(on.app.url, key, TRANSITIONS, { variables: { id: deploymentId } });
  streams.push(stream);
  expect(stream.status).toBe(200);
  return stream;
}

/** The next transition of the stream. */
async function nextTransition(stream: EventStream) {
  const result = await stream.nextResult(10_000);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  return result.data.revisionUpdated;
}

const call = restCaller(() => gateway.app.url, () => keys.writer);

let sequence = 0;
/** A new deployment without a revision yet (as the CLI creates one: its build comes in a PATCH). */
async function newDeployment(key = keys.writer): Promise<string> {
  const created = await call('POST', '/v2/deployments', {
    key, body: { name: `waiting-${++sequence}`, source: 'internal_docker', source_config: { deployment_type: 'dev' }, source_revision_config: {}, secrets: [] },
  });
  expect(created.status, created.text).toBe(201);
  expect(created.json.latest_revision_id).toBeNull();
  return created.json.id;
}

/** A PATCH with a new image: a new QUEUED revision; its id. */
async function newRevision(deploymentId: string, key = keys.writer): Promise<string> {
  const patched = await call('PATCH', `/v2/deployments/${deploymentId}`, {
    key, body: { revision_source: 'internal_docker', source_revision_config: { image_uri: `registry.example.com/acme/app:${++sequence}` }, secrets: [] },
  });
  expect(patched.status, patched.text).toBe(200);
  return patched.json.latest_revision_id;
}

/** Claims until the revision is among the leases; its lease id. */
async function claim(revisionId: string, key = keys.plane, through: LiveService = gateway): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const answer = await restCaller(() => through.app.url, () => key)('POST', '/v2/data-plane/claims', { body: { limit: 100 } });
    expect(answer.status).toBe(200);
    const lease = answer.json.leases.find((l: { revision_id: string }) => l.revision_id === revisionId);
    if (lease) return lease.lease_id;
  }
  throw new Error(`revision ${revisionId} was not claimed`);
}

async function report(revisionId: string, leaseId: string, status: string, { key = keys.plane, message, through = gateway }: { key?: string; message?: string; through?: LiveService } = {}) {
  const answer = await restCaller(() => through.app.url, () => key)('POST', `/v2/data-plane/revisions/${revisionId}/status`, {
    body: { lease_id: leaseId, status, ...(message && { message }) },
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.json;
}

/** What an event says, without its time. */
const change = (revisionId: string, deploymentId: string, previousStatus: string | null, status: string, statusMessage: string | null = null) =>
  ({ revisionId, deploymentId, previousStatus, status, at: expect.any(String), revision: { status, statusMessage, updatedAt: expect.any(String) } });

describe('revisionUpdated delivers every transition of the deployment\'s revisions', () => {
  it('from the PATCH\'s QUEUED to DEPLOYED, with SKIPPED for a superseded revision, each with the status it left', async () => {
    const id = await newDeployment();
    const stream = await transitions(id);
    const events: { at: string; revision: { updatedAt: string } }[] = [];
    const next = async () => {
      const event = await nextTransition(stream);
      events.push(event);
      return event;
    };

    const first = await newRevision(id);
    expect(await next()).toEqual(change(first, id, null, 'QUEUED'));

    // A second PATCH before any claim: the first revision is superseded, then the new one is queued (one commit, in order).
    const second = await newRevision(id);
    expect(await next()).toEqual(change(first, id, 'QUEUED', 'SKIPPED', `Superseded by revision ${second} before a data plane claimed it.`));
    expect(await next()).toEqual(change(second, id, null, 'QUEUED'));

    const leaseId = await claim(second);
    expect(await next()).toEqual(change(second, id, 'QUEUED', 'AWAITING_BUILD'));
    await report(second, leaseId, 'BUILDING', { message: 'building linux/amd64' });
    expect(await next()).toEqual(change(second, id, 'AWAITING_BUILD', 'BUILDING', 'building linux/amd64'));
    // A report retried (the same status) changes nothing, so nothing is sent: the next event is the next change.
    expect((await report(second, leaseId, 'BUILDING', { message: 'building linux/amd64' })).applied).toBe(false);
    await report(second, leaseId, 'DEPLOYING');
    expect(await next()).toEqual(change(second, id, 'BUILDING', 'DEPLOYING'));
    await report(second, leaseId, 'DEPLOYED');
    expect(await next()).toEqual(change(second, id, 'DEPLOYING', 'DEPLOYED'));
    expect(stream.buffered).toEqual([]);
    // Each event was read before the next change: its revision was as that change left it, `at` its updatedAt.
    expect(events.map((event) => event.revision.updatedAt)).toEqual(events.map((event) => event.at));
  });

  it('delivers reports made back to back one by one, in commit order, none merged (the event\'s status is its change\'s)', async () => {
    const id = await newDeployment();
    const stream = await transitions(id);
    const revision = await newRevision(id);
    const leaseId = await claim(revision);
    const walk = ['BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOY_FAILED'];
    for (const status of walk) await report(revision, leaseId, status, { message: status === 'DEPLOY_FAILED' ? 'readiness probe failed' : undefined });
    const received = [];
    for (let i = 0; i < walk.length + 2; i++) received.push(await nextTransition(stream));
    expect(received.map(({ previousStatus, status }) => [previousStatus, status])).toEqual([
      [null, 'QUEUED'], ['QUEUED', 'AWAITING_BUILD'], ['AWAITING_BUILD', 'BUILDING'], ['BUILDING', 'AWAITING_DEPLOY'], ['AWAITING_DEPLOY', 'DEPLOYING'], ['DEPLOYING', 'DEPLOY_FAILED'],
    ]);
    expect(received.every((event) => event.revisionId === revision && event.deploymentId === id)).toBe(true);
    // The revision is read when the event is sent: by the last one it has its final status and the reason.
    expect(received.at(-1).revision).toMatchObject({ status: 'DEPLOY_FAILED', statusMessage: 'readiness probe failed' });
  });

  it('delivers the service\'s own recovery of a lapsed lease: QUEUED again while latest, INTERRUPTED once superseded', async () => {
    const id = await newDeployment();
    const stream = await transitions(id);
    const revision = await newRevision(id);
    const lapsed = 'The data plane working on it stopped reporting: its lease lapsed.';
    /** The data plane stops reporting: its lease runs out (set in the past here rather than waited for), and the sweep runs. */
    const lapse = async () => {
      await db.query('update revision_lease set expires_at = now() - interval \'1 second\' where revision_id = $1', [revision]);
      expect(await recoverLapsedLeases(db.orm.em.fork())).toEqual([{ id: revision, status: expect.any(String) }]);
    };

    const leaseId = await claim(revision);
    await report(revision, leaseId, 'BUILDING');
    expect((await nextTransition(stream)).status).toBe('QUEUED');
    expect((await nextTransition(stream)).status).toBe('AWAITING_BUILD');
    expect((await nextTransition(stream)).status).toBe('BUILDING');
    await lapse();
    expect(await nextTransition(stream)).toEqual(change(revision, id, 'BUILDING', 'QUEUED', lapsed));

    await claim(revision);
    expect(await nextTransition(stream)).toEqual(change(revision, id, 'QUEUED', 'AWAITING_BUILD'));
    // A newer revision while this one is in progress: it goes on (not SKIPPED) until its lease lapses, then ends INTERRUPTED.
    const newer = await newRevision(id);
    expect(await nextTransition(stream)).toEqual(change(newer, id, null, 'QUEUED'));
    await lapse();
    expect(await nextTransition(stream)).toEqual(change(revision, id, 'AWAITING_BUILD', 'INTERRUPTED', lapsed));
    expect(stream.buffered).toEqual([]);
  });
});

describe('the deployment argument', () => {
  it('is taken inline or as a variable of any name, as a raw UUID or a global id', async () => {
    const id = await newDeployment();
    const selection = '{ revisionId status }';
    const asked = [
      ['inline', `subscription { revisionUpdated(deploymentId: "${id}") ${selection} }`, undefined],
      ['global id', `subscription { revisionUpdated(deploymentId: "${handMadeGlobalId('Deployment', id)}") ${selection} }`, undefined],
      ['other variable', `subscription Waiting($deployment: ID!) { revisionUpdated(deploymentId: $deployment) ${selection} }`, { deployment: id }],
    ] as const;
    const opened = [];
    for (const [how, query, variables] of asked) {
      const stream = await subscribe(other.app.url, keys.reader, query, { variables });
      streams.push(stream);
      opened.push({ how, stream });
    }
    const revision = await newRevision(id);
    const received = [];
    for (const { how, stream } of opened) received.push([how, await stream.nextResult(10_000)]);
    expect(received).toEqual(asked.map(([how]) => [how, { data: { revisionUpdated: { revisionId: revision, status: 'QUEUED' } } }]));
  });
});

describe('whose transitions', () => {
  it('sends only that deployment\'s: another deployment of the tenant, reported on meanwhile, is not among them', async () => {
    const [watched, neighbour] = [await newDeployment(), await newDeployment()];
    const stream = await transitions(watched);
    const theirs = await newRevision(neighbour);
    await report(theirs, await claim(theirs), 'BUILDING');
    const mine = await newRevision(watched);
    // Notifications reach the gateway in commit order: the neighbour's would have come first.
    expect(await nextTransition(stream)).toEqual(change(mine, watched, null, 'QUEUED'));
    expect(stream.buffered).toEqual([]);
  });

  it('answers another tenant\'s deployment id NOT_FOUND, exactly as an unknown id, and streams nothing', async () => {
    const acme = await newDeployment();
    const refusal = async (id: string) => {
      const stream = await subscribe(other.app.url, keys.globexReader, TRANSITIONS, { variables: { id } });
      streams.push(stream);
      const result = JSON.parse(JSON.stringify(await stream.nextResult()).replaceAll(id, '<id>'));
      const then = await stream.next();
      // The server ends the response: nothing is streamed after the refusal.
      await stream.ended;
      return { status: stream.status, result, then };
    };
    const foreign = await refusal(acme);
    expect(foreign).toEqual({
      status: 200,
      result: { errors: [{ message: 'Deployment ID <id> not found.', locations: [{ line: 2, column: 3 }], path: ['revisionUpdated'], extensions: { code: 'NOT_FOUND' } }] },
      then: { event: 'complete', data: '' },
    });
    expect(await refusal(UNKNOWN_ID)).toEqual(foreign);
  });

  it('never gives another tenant\'s subscriber ACME\'s transitions', async () => {
    const [acme, globex] = [await newDeployment(), await newDeployment(keys.globexWriter)];
    const acmeStream = await transitions(acme);
    const globexStream = await transitions(globex, keys.globexReader);
    const acmeRevision = await newRevision(acme);
    await report(acmeRevision, await claim(acmeRevision), 'DEPLOYED');
    expect((await nextTransition(acmeStream)).status).toBe('QUEUED');
    expect((await nextTransition(acmeStream)).status).toBe('AWAITING_BUILD');
    expect((await nextTransition(acmeStream)).status).toBe('DEPLOYED');
    // GLOBEX's first event is its own deployment's, though ACME's came before it.
    const globexRevision = await newRevision(globex, keys.globexWriter);
    expect(await nextTransition(globexStream)).toEqual(change(globexRevision, globex, null, 'QUEUED'));
    await report(globexRevision, await claim(globexRevision, keys.globexPlane), 'BUILDING', { key: keys.globexPlane });
    expect(await nextTransition(globexStream)).toEqual(change(globexRevision, globex, 'QUEUED', 'AWAITING_BUILD'));
    expect(await nextTransition(globexStream)).toEqual(change(globexRevision, globex, 'AWAITING_BUILD', 'BUILDING'));
    expect([acmeStream.buffered, globexStream.buffered]).toEqual([[], []]);
  });
});

describe('across gateways', () => {
  it('delivers a report made through one gateway to subscribers of both, whichever the report went through', async () => {
    const id = await newDeployment();
    const onGateway = await transitions(id, keys.reader, gateway);
    const onOther = await transitions(id, keys.reader, other);
    const revision = await newRevision(id);
    const leaseId = await claim(revision);
    for (const stream of [onGateway, onOther]) {
      expect((await nextTransition(stream)).status).toBe('QUEUED');
      expect((await nextTransition(stream)).status).toBe('AWAITING_BUILD');
    }
    await report(revision, leaseId, 'BUILDING', { through: gateway });
    for (const stream of [onGateway, onOther]) expect(await nextTransition(stream)).toEqual(change(revision, id, 'AWAITING_BUILD', 'BUILDING'));
    await report(revision, leaseId, 'DEPLOYED', { through: other });
    for (const stream of [onGateway, onOther]) expect(await nextTransition(stream)).toEqual(change(revision, id, 'BUILDING', 'DEPLOYED'));
  });
});

describe('the per-key limit', () => {
  it('frees the place of a stream whose client went away', async () => {
    const limited = await startLiveService(db, cipher, { options: { subscriptionsPerKey: 1 } });
    started.push(limited);
    const key = await issueKey(db.orm.em, [ACME]);
    const id = await newDeployment();
    const first = await transitions(id, key, limited);
    const refused = await subscribe(limited.app.url, key, TRANSITIONS, { variables: { id } });
    expect(refused.status).toBe(429);
    expect((await refused.nextResult()).errors[0].extensions.code).toBe('TOO_MANY_SUBSCRIPTIONS');
    first.close();
    // The server hears of the closed connection soon; a bounded wait for it, not a speed claim.
    for (const since = Date.now(); limited.app.app.deploymentChanges.size > 0 && Date.now() - since < 10_000;) await sleep(20);
    const again = await transitions(id, key, limited);
    const revision = await newRevision(id);
    expect(await nextTransition(again)).toEqual(change(revision, id, null, 'QUEUED'));
  });
});
