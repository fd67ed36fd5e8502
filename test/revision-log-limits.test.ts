// A revision's end and its log's size (issue 50, part 6; docs/decisions.md#revision-lifecycle): a revision in a
// final status takes no more log lines and no report but its final one again, whatever lease is sent (its own
// lease outlives its end), and a revision's log stops at 10,000 lines, both phases together: the append that
// would pass the limit is refused whole, on both doors, also when two appends come at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimThe, queuedDeployments, restPlane, storedRevision, type QueuedDeployment } from './support/data-plane.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME } from './support/fixtures.ts';
import { dataOf } from './support/graphql-expect.ts';
import { restCaller } from './support/write-calls.ts';

/** The most log lines a revision keeps (written out here, not read from src/). */
const LIMIT = 10_000;

let fixture: FixtureApp<'writer' | 'plane' | 'reader'>;
beforeAll(async () => {
  fixture = await startFixtureApp([], {
    writer: { tenants: [ACME], mayWrite: true },
    plane: { tenants: [ACME], mayReconcile: true },
    reader: { tenants: [ACME] },
  });
});
afterAll(() => fixture?.close());

const call = restCaller(() => fixture.app.url, () => fixture.keys.plane);
const claimed = async (): Promise<QueuedDeployment & { lease: string }> => {
  const [deployment] = await queuedDeployments(call, 1, { prefix: 'ended', key: fixture.keys.writer });
  return { ...deployment!, lease: await claimThe(restPlane(call, fixture.keys.plane), deployment!.revisionId) };
};
const messages = (count: number, from = 0) => Array.from({ length: count }, (_, n) => ({ message: `line ${from + n}` }));

const reportRest = (revisionId: string, leaseId: string, status: string) =>
  call('POST', `/v2/data-plane/revisions/${revisionId}/status`, { body: { lease_id: leaseId, status } });
const appendRest = (revisionId: string, leaseId: string, firstLine: number, lines: unknown[], phase = 'build') =>
  call('POST', `/v2/data-plane/revisions/${revisionId}/logs`, { body: { lease_id: leaseId, phase, first_line: firstLine, lines } });

const REPORT = `mutation Report($input: ReportRevisionStatusInput!) {
  reportRevisionStatus(input: $input) {
    __typename
    ... on ReportRevisionStatusPayload { status applied leaseExpiresAt }
    ... on MutationError { message }
    ... on InvalidTransitionError { from to }
  }
}`;
const APPEND = `mutation Append($input: AppendRevisionLogsInput!) {
  appendRevisionLogs(input: $input) {
    __typename
    ... on AppendRevisionLogsPayload { appended nextLine leaseExpiresAt }
    ... on MutationError { message }
    ... on RevisionEndedError { status }
    ... on LogLineLimitError { limit stored }
  }
}`;
const mutate = (query: string, variables: Record<string, unknown>) => fixture.app.graphql(query, { 'x-api-key': fixture.keys.plane }, variables);
const reportGraphql = async (revisionId: string, leaseId: string, status: string) => dataOf(await mutate(REPORT, { input: { revisionId, leaseId, status } })).reportRevisionStatus;
const appendGraphql = async (revisionId: string, leaseId: string, firstLine: number, lines: unknown[], phase = 'BUILD') =>
  dataOf(await mutate(APPEND, { input: { revisionId, leaseId, phase, firstLine, lines } })).appendRevisionLogs;

/** The revision's stored lines, per phase. */
async function storedLines(revisionId: string): Promise<{ build: number; deploy: number }> {
  const rows = await fixture.db.query<{ phase: 'build' | 'deploy'; lines: number }>(
    'select phase, count(*)::int as lines from revision_log_line where revision_id = $1 group by phase', [revisionId],
  );
  return { build: 0, deploy: 0, ...Object.fromEntries(rows.map((row) => [row.phase, row.lines])) };
}

const ended = (revisionId: string, status: string) => `Revision ${revisionId} has ended (${status}): it takes no more log lines.`;
const cannotGo = (revisionId: string, from: string, to: string) => `Revision ${revisionId} has ended (${from}): it cannot go to ${to}.`;
const overLimit = (revisionId: string, stored: number, fresh: number) =>
  `Revision ${revisionId} has ${stored} log lines and keeps ${LIMIT} at most: the ${fresh} new lines of this append would pass that, so none was stored.`;

describe('a revision that has ended', () => {
  it('takes no more log lines on REST, with its own lease still sent: 409 naming its status, and nothing is stored', async () => {
    const { id, revisionId, lease } = await claimed();
    expect((await reportRest(revisionId, lease, 'BUILDING')).status).toBe(200);
    expect((await appendRest(revisionId, lease, 0, messages(2))).json).toMatchObject({ appended: 2, next_line: 2 });
    expect((await reportRest(revisionId, lease, 'DEPLOYED')).json).toMatchObject({ status: 'DEPLOYED', applied: true, lease_expires_at: null });

    for (const [firstLine, lines, phase] of [[2, messages(1000, 2), 'build'], [0, messages(3), 'deploy'], [0, messages(2), 'build']] as const) {
      const refused = await appendRest(revisionId, lease, firstLine, lines, phase);
      expect({ status: refused.status, json: refused.json }).toEqual({ status: 409, json: { detail: ended(revisionId, 'DEPLOYED'), status: 'DEPLOYED' } });
    }
    expect(await storedLines(revisionId)).toEqual({ build: 2, deploy: 0 });
    const read = await call('POST', `/v1/projects/${id}/revisions/${revisionId}/build_logs`, { key: fixture.keys.reader, body: {} });
    expect(read.json.logs.map((line: { message: string }) => line.message)).toEqual(['line 0', 'line 1']);
  });

  it('takes none on GraphQL either: RevisionEndedError with the status it ended in', async () => {
    const { revisionId, lease } = await claimed();
    expect(await appendGraphql(revisionId, lease, 0, messages(5))).toMatchObject({ __typename: 'AppendRevisionLogsPayload', appended: 5 });
    expect(await reportGraphql(revisionId, lease, 'BUILD_FAILED')).toMatchObject({ __typename: 'ReportRevisionStatusPayload', applied: true });
    expect(await appendGraphql(revisionId, lease, 5, messages(1, 5))).toEqual({
      __typename: 'RevisionEndedError', status: 'BUILD_FAILED', message: ended(revisionId, 'BUILD_FAILED'),
    });
    expect(await appendGraphql(revisionId, lease, 0, messages(1), 'DEPLOY')).toMatchObject({ __typename: 'RevisionEndedError', status: 'BUILD_FAILED' });
    expect(await storedLines(revisionId)).toEqual({ build: 5, deploy: 0 });
  });

  it('takes no report but its final one again (a retry, applied once): 409 saying where it ended, on both doors', async () => {
    const { revisionId, lease } = await claimed();
    expect((await reportRest(revisionId, lease, 'DEPLOYED')).status).toBe(200);
    const before = await storedRevision(fixture.db, revisionId);
    expect(before).toMatchObject({ status: 'DEPLOYED', active_revision_id: revisionId });

    for (const status of ['DEPLOY_FAILED', 'BUILDING', 'INTERRUPTED']) {
      const refused = await reportRest(revisionId, lease, status);
      expect({ status: refused.status, json: refused.json }).toEqual({ status: 409, json: { detail: cannotGo(revisionId, 'DEPLOYED', status) } });
    }
    expect(await reportGraphql(revisionId, lease, 'BUILD_FAILED')).toEqual({
      __typename: 'InvalidTransitionError', from: 'DEPLOYED', to: 'BUILD_FAILED', message: cannotGo(revisionId, 'DEPLOYED', 'BUILD_FAILED'),
    });
    // The final report sent again (its answer was lost) is answered as before and changes nothing.
    expect((await reportRest(revisionId, lease, 'DEPLOYED')).json).toMatchObject({ status: 'DEPLOYED', applied: false, lease_expires_at: null });
    expect(await storedRevision(fixture.db, revisionId)).toEqual(before);
  });
});

describe(`a revision's log (at most ${LIMIT} lines, both phases together)`, () => {
  /** `count` lines (a multiple of 1,000) into the phase, from line 0, through REST. */
  async function fill(revisionId: string, lease: string, count: number, phase = 'build'): Promise<void> {
    for (let first = 0; first < count; first += 1000) {
      const answer = await appendRest(revisionId, lease, first, messages(Math.min(1000, count - first), first), phase);
      expect(answer.status, answer.text).toBe(200);
    }
  }

  it('refuses the append that would pass the limit, whole, naming the limit and the lines stored (REST 409, GraphQL LogLineLimitError)', async () => {
    const { revisionId, lease } = await claimed();
    await fill(revisionId, lease, 9000);
    expect((await appendRest(revisionId, lease, 0, messages(999), 'deploy')).json).toMatchObject({ appended: 999, next_line: 999 });
    expect(await storedLines(revisionId)).toEqual({ build: 9000, deploy: 999 });

    const refused = await appendRest(revisionId, lease, 999, messages(2, 999), 'deploy');
    expect({ status: refused.status, json: refused.json }).toEqual({
      status: 409, json: { detail: overLimit(revisionId, 9999, 2), line_limit: LIMIT, lines_stored: 9999 },
    });
    expect(await appendGraphql(revisionId, lease, 9000, messages(1000, 9000))).toEqual({
      __typename: 'LogLineLimitError', limit: LIMIT, stored: 9999, message: overLimit(revisionId, 9999, 1000),
    });
    expect(await storedLines(revisionId)).toEqual({ build: 9000, deploy: 999 });

    // What fits is taken; lines sent again are no new lines (a retry at the limit is still answered).
    expect((await appendRest(revisionId, lease, 998, messages(2, 998), 'deploy')).json).toMatchObject({ appended: 1, next_line: 1000 });
    expect((await appendRest(revisionId, lease, 0, messages(1000), 'deploy')).json).toMatchObject({ appended: 0, next_line: 1000 });
    expect(await appendGraphql(revisionId, lease, 9000, messages(1, 9000))).toMatchObject({ __typename: 'LogLineLimitError', limit: LIMIT, stored: LIMIT });
    expect(await storedLines(revisionId)).toEqual({ build: 9000, deploy: 1000 });
    // The revision goes on: the limit is the log's, not the build's.
    expect((await reportRest(revisionId, lease, 'DEPLOYED')).json).toMatchObject({ applied: true });
  });

  it('is not passed by two appends at once, each of which would fit alone, whichever doors they come through', async () => {
    // A few rounds, so that either may come first; one phase each, so that their line numbers never collide.
    for (let round = 0; round < 3; round++) {
      const { revisionId, lease } = await claimed();
      await fill(revisionId, lease, 9000);
      const [rest, graphql] = await Promise.all([
        appendRest(revisionId, lease, 0, messages(600), 'deploy'),
        appendGraphql(revisionId, lease, 9000, messages(600, 9000), 'BUILD'),
      ]);
      const outcomes = [
        rest.status === 200 ? 'stored' : `refused, ${rest.status}, ${rest.json.lines_stored} stored`,
        graphql.__typename === 'AppendRevisionLogsPayload' ? 'stored' : `refused, ${graphql.__typename}, ${graphql.stored} stored`,
      ];
      expect(outcomes.filter((outcome) => outcome === 'stored'), JSON.stringify({ rest: rest.json, graphql })).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome !== 'stored')).toEqual([expect.stringMatching(/^refused, (409|LogLineLimitError), 9600 stored$/)]);
      const stored = await storedLines(revisionId);
      expect(stored.build + stored.deploy).toBe(9600);
    }
  });
});
