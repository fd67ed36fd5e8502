// The revision state machine tested whole (issue 53, item 5): every pair of statuses a data plane may report,
// allowed or refused as the table of docs/decisions.md#revision-lifecycle says. The table is read from the
// document, not from the code, so the two cannot drift apart: dropping the documented skip step
// (AWAITING_BUILD to AWAITING_DEPLOY) or allowing a step back turns this red. Each "from" status is set in the
// database on a revision the data plane holds (the lifecycle reaches some of them only by import or by the
// service's own moves); each report then goes through the REST door and its effect is read back.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuedDeployments, restPlane } from './support/data-plane.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME } from './support/fixtures.ts';
import { restCaller } from './support/write-calls.ts';

/** Every revision status (contract.md), written out here rather than imported. */
const STATUSES = [
  'CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED',
  'DEPLOYED', 'SKIPPED', 'INTERRUPTED', 'UNKNOWN',
] as const;

/** The data plane's rows of the documented table: from one status, to the listed ones. */
function documentedReports(): Map<string, Set<string>> {
  const text = readFileSync(new URL('../docs/decisions.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('## Revision lifecycle'), text.indexOf('\n## ', text.indexOf('## Revision lifecycle') + 5));
  const allowed = new Map<string, Set<string>>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length !== 5 || cells[3] !== 'the data plane holding the lease') continue;
    const from = /^`([A-Z_]+)`$/.exec(cells[1]!)?.[1];
    if (!from) continue;
    allowed.set(from, new Set([...cells[2]!.matchAll(/`([A-Z_]+)`/g)].map((match) => match[1]!)));
  }
  return allowed;
}

type KeyName = 'writer' | 'plane';
let fixture: FixtureApp<KeyName>;
beforeAll(async () => {
  fixture = await startFixtureApp([], { writer: { tenants: [ACME], mayWrite: true }, plane: { tenants: [ACME], mayReconcile: true } });
});
afterAll(() => fixture?.close());

const call = restCaller(() => fixture.app.url, () => fixture.keys.writer);

describe('the revision state machine, every pair', () => {
  it('reads the table from the document: four rows of the data plane, the skip step among them', () => {
    const table = documentedReports();
    expect([...table.keys()]).toEqual(['AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING']);
    expect(table.get('AWAITING_BUILD')).toContain('AWAITING_DEPLOY');
  });

  it('allows exactly the documented reports and refuses every other pair, changing nothing', async () => {
    const table = documentedReports();
    const plane = restPlane(call, fixture.keys.plane);
    const queued = await queuedDeployments(call, STATUSES.length, { prefix: 'state-machine', key: fixture.keys.writer });
    const leases = new Map<string, string>();
    for (let claimed = await plane.claim(100); claimed.length > 0; claimed = await plane.claim(100)) for (const lease of claimed) leases.set(lease.revisionId, lease.leaseId);
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const [index, from] of STATUSES.entries()) {
      const { revisionId } = queued[index]!;
      const leaseId = leases.get(revisionId)!;
      for (const to of STATUSES) {
        await fixture.db.query('update revision set status = $2 where id = $1', [revisionId, from]);
        const answer = await call('POST', `/v2/data-plane/revisions/${revisionId}/status`, { key: fixture.keys.plane, body: { lease_id: leaseId, status: to } });
        const [{ status }] = await fixture.db.query<{ status: string }>('select status from revision where id = $1', [revisionId]) as [{ status: string }];
        const outcome = answer.status === 200 && answer.json.applied ? 'moved' : answer.status === 200 ? 'unchanged' : `refused ${answer.status}`;
        outcomes.push(`${from} -> ${to}: ${outcome}, now ${status}`);
        const allowed = table.get(from)?.has(to) ?? false;
        expected.push(`${from} -> ${to}: ${from === to ? 'unchanged' : allowed ? 'moved' : 'refused 409'}, now ${allowed ? to : from}`);
        if (answer.status === 409) {
          expect(answer.json.detail).toBe(STATUSES.slice(6, 12).includes(from as never)
            ? `Revision ${revisionId} has ended (${from}): it cannot go to ${to}.`
            : `Revision ${revisionId} cannot go from ${from} to ${to}.`);
        }
      }
    }
    expect(outcomes).toEqual(expected);
  });
});
