// Leases (issue 43, items 2 and 7; docs/decisions.md#revision-lifecycle): a data plane killed mid-build loses
// its lease, the revision goes back to QUEUED for another data plane (or ends INTERRUPTED after MAX_CLAIMS
// claims, or once a newer revision is its deployment's latest), and the old holder's late reports change
// nothing. Sweeps at once recover a revision once; a report or log append retried is applied once.
// The data plane that gets killed talks to an app with a 2-second lease, the others to one with the default
// lease on the same database (the lease is the gateway's setting), so only the leases meant to lapse do. The
// tests wait until the database's clock is past a lease (never asserting how long that took) and then run the
// sweep each gateway process runs on its timer.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  MAX_CLAIMS, leaseSweepIntervalMs, recoverLapsedLeases, startLeaseSweeps, type RecoveredRevision,
} from '../src/modules/revisions/lifecycle/lease-expiry.ts';
import { createLogger } from '../src/observability/logger.ts';
import {
  claimThe, graphqlPlane, listenToTransitions, queuedDeployments, restPlane, storedRevision, untilLapsed, APPEND, REPORT, type QueuedDeployment,
} from './support/data-plane.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME } from './support/fixtures.ts';
import { dataOf } from './support/graphql-expect.ts';
import { restCaller, TIMESTAMP } from './support/write-calls.ts';

const LAPSED_MESSAGE = 'The data plane working on it stopped reporting: its lease lapsed.';

let fixture: FixtureApp<'writer' | 'killed' | 'survivor' | 'reader'>;
/** The gateway the killed data plane talks to. */
let shortLease: RunningApp;
beforeAll(async () => {
  fixture = await startFixtureApp([], {
    writer: { tenants: [ACME], mayWrite: true },
    killed: { tenants: [ACME], mayReconcile: true },
    survivor: { tenants: [ACME], mayReconcile: true },
    reader: { tenants: [ACME] },
  });
  shortLease = await startApp(fixture.db.orm, fixture.cipher, undefined, { revisionLeaseSeconds: 2 });
});
afterAll(async () => {
  await shortLease?.close();
  await fixture?.close();
});

let transitions: Awaited<ReturnType<typeof listenToTransitions>>;
beforeEach(async () => {
  transitions = await listenToTransitions(fixture.db);
});
afterEach(() => transitions.close());

const call = restCaller(() => fixture.app.url, () => fixture.keys.writer);
const callShort = restCaller(() => shortLease.url, () => fixture.keys.killed);
const killed = () => restPlane(callShort, fixture.keys.killed);
const survivor = () => graphqlPlane(() => fixture.app, fixture.keys.survivor);
const queued = async (count = 1): Promise<QueuedDeployment[]> => queuedDeployments(call, count, { prefix: 'lease' });
const sweep = (): Promise<RecoveredRevision[]> => recoverLapsedLeases(fixture.db.orm.em.fork());
/** What this sweep did to these revisions (others of earlier tests may be in it too). */
const sweepOf = async (revisionIds: string[]) => (await sweep()).filter((r) => revisionIds.includes(r.id));

/** Through REST: by default as the killed data plane; `as: 'survivor'` as the other one. */
const reportRest = (revisionId: string, leaseId: string, status: string, as: 'killed' | 'survivor' = 'killed') =>
  (as === 'killed' ? callShort : call)('POST', `/v2/data-plane/revisions/${revisionId}/status`, { key: fixture.keys[as], body: { lease_id: leaseId, status } });
const appendRest = (revisionId: string, leaseId: string, firstLine: number, messages: string[], as: 'killed' | 'survivor' = 'killed') =>
  (as === 'killed' ? callShort : call)('POST', `/v2/data-plane/revisions/${revisionId}/logs`, {
    key: fixture.keys[as], body: { lease_id: leaseId, phase: 'build', first_line: firstLine, lines: messages.map((message) => ({ message })) },
  });
const buildLog = async ({ id, revisionId }: QueuedDeployment) =>
  (await call('POST', `/v1/projects/${id}/revisions/${revisionId}/build_logs`, { key: fixture.keys.reader, body: { limit: 100 } })).json.logs.map((l: { message: string }) => l.message);

async function seen({ id, revisionId }: QueuedDeployment): Promise<{ status: string; statusMessage: string | null; active: string | null }> {
  const data = dataOf(await fixture.app.graphql(
    'query Seen($id: ID!, $rid: ID!) { deployment(id: $id) { activeRevision { uuid } revision(id: $rid) { status statusMessage } } }',
    { 'x-api-key': fixture.keys.reader }, { id, rid: revisionId },
  ));
  return { ...data.deployment.revision, active: data.deployment.activeRevision?.uuid ?? null };
}

const leaseLost = (revisionId: string, status: string) => ({
  detail: `The lease on revision ${revisionId} is not held by this report (the revision is ${status} now); stop working on it.`, status,
});

describe('a data plane killed mid-build', () => {
  it('loses its lease: the revision is queued again, another data plane builds it, and the old holder changes nothing', async () => {
    const [deployment] = await queued();
    const { revisionId } = deployment!;
    const oldLease = await claimThe(killed(), revisionId);
    expect((await reportRest(revisionId, oldLease, 'BUILDING')).json.applied).toBe(true);
    expect((await appendRest(revisionId, oldLease, 0, ['Step 1/3'])).json).toMatchObject({ appended: 1, next_line: 1 });
    // ... and the data plane stops reporting.
    await untilLapsed(fixture.db, [revisionId]);

    // Lapsed but not yet swept: whatever its holder says now is refused.
    expect(await reportRest(revisionId, oldLease, 'DEPLOYING')).toMatchObject({ status: 409, json: leaseLost(revisionId, 'BUILDING') });
    expect(await reportRest(revisionId, oldLease, 'BUILDING')).toMatchObject({ status: 409, json: leaseLost(revisionId, 'BUILDING') });
    expect(await sweepOf([revisionId])).toEqual([{ id: revisionId, status: 'QUEUED' }]);
    expect(await seen(deployment!)).toEqual({ status: 'QUEUED', statusMessage: LAPSED_MESSAGE, active: null });

    const newLease = await claimThe(survivor(), revisionId);
    expect(newLease).not.toBe(oldLease);

    // The old holder wakes up: every door refuses it, and the revision stays as the new holder has it.
    expect(await reportRest(revisionId, oldLease, 'DEPLOYED')).toMatchObject({ status: 409, json: leaseLost(revisionId, 'AWAITING_BUILD') });
    expect(await reportRest(revisionId, oldLease, 'AWAITING_BUILD')).toMatchObject({ status: 409, json: leaseLost(revisionId, 'AWAITING_BUILD') });
    expect(await appendRest(revisionId, oldLease, 1, ['Step 2/3'])).toMatchObject({ status: 409, json: leaseLost(revisionId, 'AWAITING_BUILD') });
    const viaGraphql = await shortLease.graphql(REPORT, { 'x-api-key': fixture.keys.killed }, { input: { revisionId, leaseId: oldLease, status: 'BUILD_FAILED' } });
    expect(dataOf(viaGraphql).reportRevisionStatus).toEqual({
      __typename: 'LeaseLostError', status: 'AWAITING_BUILD', message: leaseLost(revisionId, 'AWAITING_BUILD').detail,
    });
    expect(await storedRevision(fixture.db, revisionId)).toMatchObject({ status: 'AWAITING_BUILD', active_revision_id: null });
    expect(await buildLog(deployment!)).toEqual(['Step 1/3']);

    // The new holder walks it to DEPLOYED.
    for (const status of ['BUILDING', 'DEPLOYED']) expect(await survivor().report(revisionId, newLease, status)).toEqual({ applied: true });
    expect(await seen(deployment!)).toEqual({ status: 'DEPLOYED', statusMessage: null, active: revisionId });
    await transitions.settled();
    expect(transitions.of(revisionId)).toEqual([
      'QUEUED AWAITING_BUILD', 'AWAITING_BUILD BUILDING', 'BUILDING QUEUED', 'QUEUED AWAITING_BUILD', 'AWAITING_BUILD BUILDING', 'BUILDING DEPLOYED',
    ]);
  });

  it(`ends INTERRUPTED once its lease lapsed ${MAX_CLAIMS} times, and is claimed no more`, async () => {
    const [deployment] = await queued();
    const { revisionId } = deployment!;
    const outcomes: string[] = [];
    for (let claim = 1; claim <= MAX_CLAIMS; claim++) {
      await claimThe(killed(), revisionId);
      await untilLapsed(fixture.db, [revisionId]);
      outcomes.push(...(await sweepOf([revisionId])).map((r) => r.status));
    }
    expect(outcomes).toEqual([...Array.from({ length: MAX_CLAIMS - 1 }, () => 'QUEUED'), 'INTERRUPTED']);
    expect(await seen(deployment!)).toEqual({ status: 'INTERRUPTED', statusMessage: LAPSED_MESSAGE, active: null });
    expect((await killed().claim(100)).map((l) => l.revisionId)).not.toContain(revisionId);
    expect(await storedRevision(fixture.db, revisionId)).toMatchObject({ status: 'INTERRUPTED' });
  });

  it('ends INTERRUPTED when a newer revision is its deployment\'s latest, and the newer one is claimable', async () => {
    const [deployment] = await queued();
    const { id, revisionId: older } = deployment!;
    const lease = await claimThe(killed(), older);
    expect((await reportRest(older, lease, 'BUILDING')).json.applied).toBe(true);
    const patched = await call('PATCH', `/v2/deployments/${id}`, { body: { source_revision_config: { image_uri: 'nginx:1.28' } } });
    expect(patched.status).toBe(200);
    const newer = patched.json.latest_revision_id as string;
    expect(await storedRevision(fixture.db, older)).toMatchObject({ status: 'BUILDING' });
    await untilLapsed(fixture.db, [older]);
    expect(await sweepOf([older, newer])).toEqual([{ id: older, status: 'INTERRUPTED' }]);
    expect(await seen(deployment!)).toEqual({ status: 'INTERRUPTED', statusMessage: LAPSED_MESSAGE, active: null });
    expect(await storedRevision(fixture.db, newer)).toMatchObject({ status: 'QUEUED' });
    const newerLease = await claimThe(survivor(), newer);
    expect(await survivor().report(newer, newerLease, 'DEPLOYED')).toEqual({ applied: true });
    expect(await reportRest(older, lease, 'DEPLOYED')).toMatchObject({ status: 409, json: leaseLost(older, 'INTERRUPTED') });
    expect(await storedRevision(fixture.db, older)).toMatchObject({ status: 'INTERRUPTED', active_revision_id: newer });
  });
});

describe('sweeps at once', () => {
  it('recover each lapsed revision once between them', async () => {
    const deployments = await queued(40);
    const ids = deployments.map((d) => d.revisionId);
    const claimed = (await killed().claim(100)).map((l) => l.revisionId);
    expect(claimed).toEqual(expect.arrayContaining(ids));
    await untilLapsed(fixture.db, ids);
    const sweeps = await Promise.all([sweep(), sweep(), sweep()]);
    const recovered = sweeps.flat();
    expect(recovered.length).toBe(new Set(recovered.map((r) => r.id)).size);
    expect(recovered.filter((r) => ids.includes(r.id))).toEqual(expect.arrayContaining(ids.map((id) => ({ id, status: 'QUEUED' }))));
    expect(recovered.filter((r) => ids.includes(r.id))).toHaveLength(ids.length);
    await transitions.settled();
    expect(ids.filter((id) => transitions.of(id).join() !== 'QUEUED AWAITING_BUILD,AWAITING_BUILD QUEUED')).toEqual([]);
    // Queued again, once each: one claim takes them all back.
    const again = await survivor().claim(100);
    expect(again.map((l) => l.revisionId)).toEqual(expect.arrayContaining(ids));
    const done = await Promise.all(again.map(({ revisionId, leaseId }) => survivor().report(revisionId, leaseId, 'DEPLOYED')));
    expect(done.filter((outcome) => !('applied' in outcome && outcome.applied))).toEqual([]);
  });
});

describe('retries', () => {
  it('apply a report sent again after a timeout once, whichever door and however many at once', async () => {
    const [deployment] = await queued();
    const { revisionId } = deployment!;
    const lease = await claimThe(survivor(), revisionId);
    const atOnce = await Promise.all([reportRest(revisionId, lease, 'BUILDING', 'survivor'), reportRest(revisionId, lease, 'BUILDING', 'survivor')]);
    expect(atOnce.map((a) => a.status)).toEqual([200, 200]);
    expect(atOnce.map((a) => a.json.applied).sort()).toEqual([false, true]);
    const later = await fixture.app.graphql(REPORT, { 'x-api-key': fixture.keys.survivor }, { input: { revisionId, leaseId: lease, status: 'BUILDING' } });
    expect(dataOf(later).reportRevisionStatus).toEqual({
      __typename: 'ReportRevisionStatusPayload', revisionId, status: 'BUILDING', applied: false, leaseExpiresAt: expect.stringMatching(TIMESTAMP),
    });
    const deployed = await Promise.all([reportRest(revisionId, lease, 'DEPLOYED', 'survivor'), reportRest(revisionId, lease, 'DEPLOYED', 'survivor')]);
    expect(deployed.map((a) => a.json.applied).sort()).toEqual([false, true]);
    expect(deployed.map((a) => a.json.lease_expires_at)).toEqual([null, null]);
    expect(await reportRest(revisionId, lease, 'DEPLOYED', 'survivor')).toMatchObject({ status: 200, json: { applied: false, lease_expires_at: null } });
    await transitions.settled();
    expect(transitions.of(revisionId)).toEqual(['QUEUED AWAITING_BUILD', 'AWAITING_BUILD BUILDING', 'BUILDING DEPLOYED']);
    expect(await seen(deployment!)).toMatchObject({ status: 'DEPLOYED', active: revisionId });
  });

  it('store the lines of a log append sent again once, whichever door and however many at once', async () => {
    const [deployment] = await queued();
    const { revisionId } = deployment!;
    const lease = await claimThe(survivor(), revisionId);
    const lines = ['Step 1/3 : FROM nginx', 'Step 2/3 : COPY . /app', 'Step 3/3 : CMD run'];
    const atOnce = await Promise.all([appendRest(revisionId, lease, 0, lines, 'survivor'), appendRest(revisionId, lease, 0, lines, 'survivor')]);
    expect(atOnce.map((a) => a.json.appended).sort()).toEqual([0, 3]);
    expect(atOnce.map((a) => a.json.next_line)).toEqual([3, 3]);
    const later = await fixture.app.graphql(APPEND, { 'x-api-key': fixture.keys.survivor }, {
      input: { revisionId, leaseId: lease, phase: 'BUILD', firstLine: 1, lines: [{ message: lines[1] }, { message: lines[2] }, { message: 'Successfully built' }] },
    });
    expect(dataOf(later).appendRevisionLogs).toMatchObject({ __typename: 'AppendRevisionLogsPayload', appended: 1, nextLine: 4 });
    expect(await buildLog(deployment!)).toEqual([...lines, 'Successfully built']);
    const stored = await fixture.db.query<{ line: number; message: string }>('select line, message from revision_log_line where revision_id = $1 order by line', [revisionId]);
    expect(stored).toEqual([...lines, 'Successfully built'].map((message, line) => ({ line, message })));
    expect((await reportRest(revisionId, lease, 'BUILD_FAILED', 'survivor')).json.applied).toBe(true);
  });
});

describe('the sweep every gateway process runs on its timer', () => {
  it('recovers a lapsed lease with nobody asking, within its interval (a quarter of the lease, at least a second)', async () => {
    expect([leaseSweepIntervalMs(2), leaseSweepIntervalMs(60), leaseSweepIntervalMs(3600)]).toEqual([1_000, 5_000, 5_000]);
    const stop = startLeaseSweeps(fixture.db.orm.em, leaseSweepIntervalMs(2), createLogger('silent'));
    try {
      const [deployment] = await queued();
      await claimThe(killed(), deployment!.revisionId);
      // Bounded, not timed: the process's own sweep must get there without a call from the test.
      for (let waited = 0; (await seen(deployment!)).status !== 'QUEUED'; waited += 250) {
        if (waited > 20_000) throw new Error('the lapsed lease was not recovered by the timer');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(await seen(deployment!)).toMatchObject({ status: 'QUEUED', statusMessage: LAPSED_MESSAGE });
    } finally {
      stop();
    }
  });
});
