// Two data planes racing for one queue (issue 43, item 7): 200 queued revisions, one data plane claiming
// through REST and one through GraphQL, each with two claim loops of 5 at a time, all at once. Every revision
// is claimed by exactly one of them, once, and walked to DEPLOYED by that one alone
// (docs/decisions.md#revision-lifecycle: claims take rows FOR UPDATE SKIP LOCKED).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlPlane, listenToTransitions, queuedDeployments, restPlane, type DataPlane, type Lease, type Outcome, type QueuedDeployment } from './support/data-plane.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME } from './support/fixtures.ts';
import { restCaller } from './support/write-calls.ts';

const REVISIONS = 200;
const CLAIM_LIMIT = 5;
const LOOPS_PER_PLANE = 2;

let fixture: FixtureApp<'writer' | 'restPlane' | 'graphqlPlane' | 'reader'>;
let queued: QueuedDeployment[];
beforeAll(async () => {
  fixture = await startFixtureApp([], {
    writer: { tenants: [ACME], mayWrite: true },
    restPlane: { tenants: [ACME], mayReconcile: true },
    graphqlPlane: { tenants: [ACME], mayReconcile: true },
    reader: { tenants: [ACME] },
  });
  queued = await queuedDeployments(restCaller(() => fixture.app.url, () => fixture.keys.writer), REVISIONS, { prefix: 'race' });
});
afterAll(() => fixture?.close());

interface PlaneLog {
  leases: Lease[];
  reports: { revisionId: string; status: string; outcome: Outcome }[];
}

/** Claims `CLAIM_LIMIT` at a time until a claim comes back empty, walking each revision claimed to DEPLOYED. */
async function work(plane: DataPlane, log: PlaneLog): Promise<void> {
  for (let round = 0; round < REVISIONS; round++) {
    const leases = await plane.claim(CLAIM_LIMIT);
    if (leases.length === 0) return;
    expect(leases.length).toBeLessThanOrEqual(CLAIM_LIMIT);
    log.leases.push(...leases);
    await Promise.all(leases.map(async ({ revisionId, leaseId }) => {
      for (const status of ['BUILDING', 'DEPLOYED']) log.reports.push({ revisionId, status, outcome: await plane.report(revisionId, leaseId, status) });
    }));
  }
}

describe('two data planes claiming one queue at once', () => {
  it('claim each of 200 revisions exactly once, and each is DEPLOYED by the one that claimed it', async () => {
    const transitions = await listenToTransitions(fixture.db);
    try {
      const planes = {
        rest: { plane: restPlane(restCaller(() => fixture.app.url, () => fixture.keys.restPlane), fixture.keys.restPlane), log: { leases: [], reports: [] } as PlaneLog },
        graphql: { plane: graphqlPlane(() => fixture.app, fixture.keys.graphqlPlane), log: { leases: [], reports: [] } as PlaneLog },
      };
      await Promise.all(Object.values(planes).flatMap(({ plane, log }) => Array.from({ length: LOOPS_PER_PLANE }, () => work(plane, log))));

      const mine = new Set(queued.map((q) => q.revisionId));
      const all = [...planes.rest.log.leases, ...planes.graphql.log.leases];
      // No revision claimed twice, no lease handed out twice, whichever plane asked.
      expect(new Set(all.map((l) => l.revisionId)).size).toBe(all.length);
      expect(new Set(all.map((l) => l.leaseId)).size).toBe(all.length);
      const byRest = new Set(planes.rest.log.leases.map((l) => l.revisionId));
      const byGraphql = new Set(planes.graphql.log.leases.map((l) => l.revisionId));
      expect([...byRest].filter((id) => byGraphql.has(id))).toEqual([]);
      expect(new Set([...byRest, ...byGraphql].filter((id) => mine.has(id))).size).toBe(REVISIONS);
      // Both really raced (neither found the queue empty before the other was done).
      expect(byRest.size).toBeGreaterThan(0);
      expect(byGraphql.size).toBeGreaterThan(0);
      for (const lease of all) expect(lease.tenantId).toBe(ACME);

      // Every report of the claimer was applied: nobody else held its lease meanwhile.
      for (const { log } of Object.values(planes)) {
        expect(log.reports.filter((r) => !('applied' in r.outcome) || !r.outcome.applied)).toEqual([]);
        expect(log.reports).toHaveLength(log.leases.length * 2);
      }

      const stored = await fixture.db.query<{ id: string; status: string; active_revision_id: string | null }>(
        'select r.id, r.status, d.active_revision_id from revision r join deployment d on d.id = r.deployment_id where r.id = any($1::uuid[])', [[...mine]],
      );
      expect(stored.filter((row) => row.status !== 'DEPLOYED' || row.active_revision_id !== row.id)).toEqual([]);
      expect(stored).toHaveLength(REVISIONS);

      // Each went through the lifecycle once: one claim, one BUILDING, one DEPLOYED.
      await transitions.settled();
      const walked = queued.filter(({ revisionId }) => transitions.of(revisionId).join() !== 'QUEUED AWAITING_BUILD,AWAITING_BUILD BUILDING,BUILDING DEPLOYED');
      expect(walked.map(({ revisionId }) => [revisionId, transitions.of(revisionId)])).toEqual([]);

      // As a client sees them: a few deployments read back through REST.
      const call = restCaller(() => fixture.app.url, () => fixture.keys.reader);
      for (const { id, revisionId } of [queued[0]!, queued[REVISIONS / 2]!, queued.at(-1)!]) {
        const deployment = await call('GET', `/v2/deployments/${id}`);
        expect(deployment.json.active_revision_id).toBe(revisionId);
        expect((await call('GET', `/v2/deployments/${id}/revisions/${revisionId}`)).json.status).toBe('DEPLOYED');
      }
    } finally {
      await transitions.close();
    }
  });
});
