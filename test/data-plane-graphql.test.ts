// The data-plane API's answers as a client reads them (issue 43, items 1, 2 and 4): the GraphQL door's typed
// refusals with their fields, BAD_USER_INPUT for arguments out of range, the REST door's 422 bodies in
// FastAPI's shape (pydantic v2's items written out by hand here), a revision's log as a Relay connection and
// as offset pages, and a deployment's status report changing only the keys sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPEND, CLAIM, claimThe, queuedDeployments, REPORT, REPORT_DEPLOYMENT, restPlane, storedRevision, type QueuedDeployment } from './support/data-plane.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME } from './support/fixtures.ts';
import { dataOf, expectGraphQLError } from './support/graphql-expect.ts';
import { pydantic, restCaller, UNKNOWN_ID } from './support/write-calls.ts';

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
const queued = async (): Promise<QueuedDeployment> => (await queuedDeployments(call, 1, { prefix: 'typed', key: fixture.keys.writer }))[0]!;
const claimed = async (): Promise<QueuedDeployment & { lease: string }> => {
  const deployment = await queued();
  return { ...deployment, lease: await claimThe(restPlane(call, fixture.keys.plane), deployment.revisionId) };
};
const mutate = (query: string, variables: Record<string, unknown>) => fixture.app.graphql(query, { 'x-api-key': fixture.keys.plane }, variables);
const report = async (revisionId: string, leaseId: string, status: string) => dataOf(await mutate(REPORT, { input: { revisionId, leaseId, status } })).reportRevisionStatus;
const append = async (revisionId: string, leaseId: string, firstLine: number, lines: unknown[], phase = 'BUILD') =>
  dataOf(await mutate(APPEND, { input: { revisionId, leaseId, phase, firstLine, lines } })).appendRevisionLogs;
const messages = (count: number, from = 0) => Array.from({ length: count }, (_, n) => ({ message: `line ${from + n}` }));

describe('typed refusals of the GraphQL door', () => {
  it('InvalidTransitionError names both statuses, and nothing changes', async () => {
    const { revisionId, lease } = await claimed();
    expect(await report(revisionId, lease, 'DEPLOYING')).toMatchObject({ __typename: 'ReportRevisionStatusPayload', status: 'DEPLOYING', applied: true });
    expect(await report(revisionId, lease, 'BUILDING')).toEqual({
      __typename: 'InvalidTransitionError', from: 'DEPLOYING', to: 'BUILDING', message: `Revision ${revisionId} cannot go from DEPLOYING to BUILDING.`,
    });
    // Not a data plane's to report: QUEUED, SKIPPED (the service's) and anything out of a final status.
    expect(await report(revisionId, lease, 'QUEUED')).toMatchObject({ __typename: 'InvalidTransitionError', from: 'DEPLOYING', to: 'QUEUED' });
    expect(await report(revisionId, lease, 'SKIPPED')).toMatchObject({ __typename: 'InvalidTransitionError', from: 'DEPLOYING', to: 'SKIPPED' });
    expect(await storedRevision(fixture.db, revisionId)).toMatchObject({ status: 'DEPLOYING' });
    expect(await report(revisionId, lease, 'DEPLOY_FAILED')).toMatchObject({ __typename: 'ReportRevisionStatusPayload', applied: true, leaseExpiresAt: null });
    expect(await report(revisionId, lease, 'DEPLOYED')).toMatchObject({ __typename: 'InvalidTransitionError', from: 'DEPLOY_FAILED', to: 'DEPLOYED' });
    expect(await storedRevision(fixture.db, revisionId)).toEqual({ status: 'DEPLOY_FAILED', status_message: null, active_revision_id: null });
  });

  it('LeaseLostError gives the revision\'s status, for a lease not the revision\'s or a revision nobody claimed', async () => {
    const { revisionId } = await claimed();
    const stranger = '0f0f0f0f-1111-4111-8111-0f0f0f0f0f0f';
    const lost = (status: string, id = revisionId) => ({
      __typename: 'LeaseLostError', status, message: `The lease on revision ${id} is not held by this report (the revision is ${status} now); stop working on it.`,
    });
    expect(await report(revisionId, stranger, 'BUILDING')).toEqual(lost('AWAITING_BUILD'));
    expect(await append(revisionId, stranger, 0, messages(1))).toEqual(lost('AWAITING_BUILD'));
    const unclaimed = await queued();
    expect(await report(unclaimed.revisionId, stranger, 'AWAITING_BUILD')).toEqual(lost('QUEUED', unclaimed.revisionId));
    expect(await storedRevision(fixture.db, unclaimed.revisionId)).toMatchObject({ status: 'QUEUED' });
    expect(await storedRevision(fixture.db, revisionId)).toMatchObject({ status: 'AWAITING_BUILD' });
  });

  it('LogLinesOutOfOrderError gives the line expected, and nothing is stored', async () => {
    const { revisionId, lease } = await claimed();
    expect(await append(revisionId, lease, 1, messages(2, 1))).toEqual({
      __typename: 'LogLinesOutOfOrderError', expectedLine: 0, message: 'The append starts at line 1, after a gap: the next line expected is 0.',
    });
    expect(await append(revisionId, lease, 0, messages(2))).toMatchObject({ __typename: 'AppendRevisionLogsPayload', appended: 2, nextLine: 2 });
    expect(await append(revisionId, lease, 3, messages(1, 3))).toMatchObject({ __typename: 'LogLinesOutOfOrderError', expectedLine: 2 });
    // The other phase is numbered on its own.
    expect(await append(revisionId, lease, 0, messages(1), 'DEPLOY')).toMatchObject({ appended: 1, nextLine: 1 });
    expect(await fixture.db.query('select phase, line from revision_log_line where revision_id = $1 order by phase, line', [revisionId]))
      .toEqual([{ phase: 'build', line: 0 }, { phase: 'build', line: 1 }, { phase: 'deploy', line: 0 }]);
  });

  it('RevisionNotFoundError and DeploymentNotFoundError for ids that are none of the tenant\'s', async () => {
    const { id, revisionId, lease } = await claimed();
    const missing = { __typename: 'RevisionNotFoundError', message: `Revision ID ${UNKNOWN_ID} not found.` };
    expect(await report(UNKNOWN_ID, lease, 'BUILDING')).toEqual(missing);
    expect(await append(UNKNOWN_ID, lease, 0, messages(1))).toEqual(missing);
    // A global id of a deployment is no revision's.
    const deploymentGlobalId = dataOf(await fixture.app.graphql('query D($id: ID!) { deployment(id: $id) { id } }', { 'x-api-key': fixture.keys.reader }, { id })).deployment.id;
    expect(await report(deploymentGlobalId, lease, 'BUILDING')).toEqual({ __typename: 'RevisionNotFoundError', message: `Revision ID ${deploymentGlobalId} not found.` });
    const deployment = dataOf(await mutate(REPORT_DEPLOYMENT, { input: { deploymentId: UNKNOWN_ID, status: 'READY' } })).reportDeploymentStatus;
    expect(deployment).toEqual({ __typename: 'DeploymentNotFoundError', message: `Deployment ID ${UNKNOWN_ID} not found.` });
    expect(await storedRevision(fixture.db, revisionId)).toMatchObject({ status: 'AWAITING_BUILD' });
  });
});

describe('arguments out of range', () => {
  it('are BAD_USER_INPUT naming the argument, and claim or store nothing', async () => {
    const waiting = await queued();
    for (const limit of [0, 101]) {
      const error = expectGraphQLError(await mutate(CLAIM, { limit }), 'BAD_USER_INPUT', `Invalid argument "input.limit": must be between 1 and 100; got ${limit}.`);
      expect(error.extensions.argument).toBe('input.limit');
    }
    expect(await storedRevision(fixture.db, waiting.revisionId)).toMatchObject({ status: 'QUEUED' });

    const { revisionId, lease } = await claimed();
    const input = (lines: unknown[], firstLine = 0) => ({ input: { revisionId, leaseId: lease, phase: 'BUILD', firstLine, lines } });
    expectGraphQLError(await mutate(APPEND, input([])), 'BAD_USER_INPUT', 'Invalid argument "input.lines": must hold 1 to 1000 lines; got 0.');
    expectGraphQLError(await mutate(APPEND, input(messages(1001))), 'BAD_USER_INPUT', 'Invalid argument "input.lines": must hold 1 to 1000 lines; got 1001.');
    expectGraphQLError(await mutate(APPEND, input(messages(1), -1)), 'BAD_USER_INPUT', 'Invalid argument "input.firstLine": must be 0 or more; got -1.');
    expect(await append(revisionId, lease, 0, messages(1000))).toMatchObject({ appended: 1000, nextLine: 1000 });
    expect(await fixture.db.query('select count(*)::int as lines from revision_log_line where revision_id = $1', [revisionId])).toEqual([{ lines: 1000 }]);
  });
});

describe('REST bodies refused', () => {
  it('answer 422 with every problem in FastAPI\'s shape, and change nothing', async () => {
    const { revisionId, lease } = await claimed();
    const refused = async (path: string, body: unknown) => {
      const answer = await call('POST', path, { body });
      expect(answer.type).toBe('application/json');
      return { status: answer.status, json: answer.json };
    };
    const status = `/v2/data-plane/revisions/${revisionId}/status`;
    const logs = `/v2/data-plane/revisions/${revisionId}/logs`;
    // The statuses in the order of the original's enum (shared/spec/original-write-side.md).
    const STATUSES = "'CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED', 'DEPLOYED', 'SKIPPED', 'INTERRUPTED' or 'UNKNOWN'";

    expect(await refused(status, { status: 'BUILDING' })).toEqual({ status: 422, json: { detail: [pydantic('missing', ['body', 'lease_id'], 'Field required', { status: 'BUILDING' })] } });
    const badStatus = await refused(status, { lease_id: lease, status: 'DONE' });
    // The status is the original's Enum class (`enum`), the phase one of our Literals (`literal_error`).
    expect(badStatus).toEqual({ status: 422, json: { detail: [pydantic('enum', ['body', 'status'], `Input should be ${STATUSES}`, 'DONE', { expected: STATUSES })] } });
    expect(await refused(logs, { lease_id: lease, phase: 'build', first_line: 0, lines: [] })).toEqual({
      status: 422, json: { detail: [pydantic('too_short', ['body', 'lines'], 'List should have at least 1 item after validation, not 0', [], { field_type: 'List', min_length: 1, actual_length: 0 })] },
    });
    expect(await refused(logs, { lease_id: lease, phase: 'build', first_line: -1, lines: [{ message: 'x' }] })).toEqual({
      status: 422, json: { detail: [pydantic('greater_than_equal', ['body', 'first_line'], 'Input should be greater than or equal to 0', -1, { ge: 0 })] },
    });
    // Every problem at once, in the order of the fields.
    const many = { phase: 'compile', first_line: -1, lines: [{ level: 'info' }] };
    expect(await refused(logs, many)).toEqual({
      status: 422,
      json: {
        detail: [
          pydantic('missing', ['body', 'lease_id'], 'Field required', many),
          pydantic('literal_error', ['body', 'phase'], "Input should be 'build', 'deploy' or 'runtime'", 'compile', { expected: "'build', 'deploy' or 'runtime'" }),
          pydantic('greater_than_equal', ['body', 'first_line'], 'Input should be greater than or equal to 0', -1, { ge: 0 }),
          pydantic('missing', ['body', 'lines', 0, 'message'], 'Field required', { level: 'info' }),
        ],
      },
    });
    const noLease = { phase: 'build', first_line: 0, lines: [] };
    expect(await refused(logs, noLease)).toEqual({
      status: 422,
      json: {
        detail: [
          pydantic('missing', ['body', 'lease_id'], 'Field required', noLease),
          pydantic('too_short', ['body', 'lines'], 'List should have at least 1 item after validation, not 0', [], { field_type: 'List', min_length: 1, actual_length: 0 }),
        ],
      },
    });
    for (const limit of [0, 101]) {
      const item = limit === 0
        ? pydantic('greater_than_equal', ['body', 'limit'], 'Input should be greater than or equal to 1', 0, { ge: 1 })
        : pydantic('less_than_equal', ['body', 'limit'], 'Input should be less than or equal to 100', 101, { le: 100 });
      expect(await refused('/v2/data-plane/claims', { limit })).toEqual({ status: 422, json: { detail: [item] } });
    }
    expect(await storedRevision(fixture.db, revisionId)).toMatchObject({ status: 'AWAITING_BUILD' });
    expect(await fixture.db.query('select line from revision_log_line where revision_id = $1', [revisionId])).toEqual([]);
  });
});

describe('a revision\'s log', () => {
  const LOG = `query Log($id: ID!, $rid: ID!, $first: Int, $after: String, $last: Int, $before: String, $phase: RevisionLogPhase! = BUILD) {
    deployment(id: $id) { revision(id: $rid) {
      logs(phase: $phase, first: $first, after: $after, last: $last, before: $before) {
        edges { cursor node { line message level timestamp } }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    } }
  }`;
  let deployment: QueuedDeployment;
  const page = async (args: Record<string, unknown>) => {
    const data = dataOf(await fixture.app.graphql(LOG, { 'x-api-key': fixture.keys.reader }, { id: deployment.id, rid: deployment.revisionId, ...args }));
    const { edges, pageInfo } = data.deployment.revision.logs;
    expect(pageInfo.startCursor).toBe(edges[0]?.cursor ?? null);
    expect(pageInfo.endCursor).toBe(edges.at(-1)?.cursor ?? null);
    return { lines: edges.map((e: { node: { line: number } }) => e.node.line), next: pageInfo.hasNextPage, previous: pageInfo.hasPreviousPage, start: pageInfo.startCursor, end: pageInfo.endCursor };
  };

  beforeAll(async () => {
    const { lease, ...rest } = await claimed();
    deployment = rest;
    await append(rest.revisionId, lease, 0, [
      { message: 'Step 1/7', level: 'info', timestamp: '2030-01-02T03:04:05.678Z' }, ...messages(6, 1),
    ]);
    await append(rest.revisionId, lease, 0, [{ message: 'rolling out', level: 'info' }, { message: 'probe failed', level: 'error' }], 'DEPLOY');
  });

  it('pages forward with first/after and back with last/before, with pageInfo telling where more is', async () => {
    const first = await page({ first: 3 });
    expect(first).toMatchObject({ lines: [0, 1, 2], next: true, previous: false });
    const second = await page({ first: 3, after: first.end });
    expect(second).toMatchObject({ lines: [3, 4, 5], next: true, previous: true });
    const third = await page({ first: 3, after: second.end });
    expect(third).toMatchObject({ lines: [6], next: false, previous: true });
    expect(await page({ first: 3, after: third.end })).toMatchObject({ lines: [], next: false, previous: true });

    const last = await page({ last: 3 });
    expect(last).toMatchObject({ lines: [4, 5, 6], next: false, previous: true });
    const before = await page({ last: 3, before: last.start });
    expect(before).toMatchObject({ lines: [1, 2, 3], next: true, previous: true });
    expect(await page({ last: 3, before: before.start })).toMatchObject({ lines: [0], next: true, previous: false });
    expect(await page({})).toMatchObject({ lines: [0, 1, 2, 3, 4, 5, 6], next: false, previous: false });
  });

  it('keeps each line\'s message, level and timestamp, and each phase apart', async () => {
    const data = dataOf(await fixture.app.graphql(LOG, { 'x-api-key': fixture.keys.reader }, { id: deployment.id, rid: deployment.revisionId, first: 1 }));
    expect(data.deployment.revision.logs.edges[0].node).toEqual({ line: 0, message: 'Step 1/7', level: 'info', timestamp: '2030-01-02T03:04:05.678Z' });
    const deploy = dataOf(await fixture.app.graphql(LOG, { 'x-api-key': fixture.keys.reader }, { id: deployment.id, rid: deployment.revisionId, phase: 'DEPLOY' }));
    expect(deploy.deployment.revision.logs.edges.map((e: { node: unknown }) => e.node)).toEqual([
      { line: 0, message: 'rolling out', level: 'info', timestamp: expect.any(String) },
      { line: 1, message: 'probe failed', level: 'error', timestamp: expect.any(String) },
    ]);
  });

  it('reads as offset pages too (logPage), either end first', async () => {
    const logPage = async (args: string) => dataOf(await fixture.app.graphql(
      `query P($id: ID!, $rid: ID!) { deployment(id: $id) { revision(id: $rid) { logPage(${args}) { lines { line message } offset } } } }`,
      { 'x-api-key': fixture.keys.reader }, { id: deployment.id, rid: deployment.revisionId },
    )).deployment.revision.logPage;
    expect(await logPage('limit: 3')).toEqual({ lines: [0, 1, 2].map((line) => ({ line, message: line ? `line ${line}` : 'Step 1/7' })), offset: 3 });
    expect(await logPage('limit: 3, offset: 6')).toEqual({ lines: [{ line: 6, message: 'line 6' }], offset: 7 });
    expect(await logPage('order: DESC, limit: 2, offset: 2')).toEqual({ lines: [{ line: 4, message: 'line 4' }, { line: 3, message: 'line 3' }], offset: 4 });
    expect(await logPage('phase: DEPLOY, order: DESC, limit: 1')).toEqual({ lines: [{ line: 1, message: 'probe failed' }], offset: 1 });
    expect(await logPage('limit: 5, offset: 7')).toEqual({ lines: [], offset: 7 });
  });
});

describe('a deployment\'s status report', () => {
  it('changes only the keys sent, as GET /v2/deployments/{id} shows them, through either door', async () => {
    const { id } = await queued();
    const read = async () => (await call('GET', `/v2/deployments/${id}`, { key: fixture.keys.reader })).json;
    const shown = (record: Record<string, any>) => ({ status: record.status, custom_url: record.source_config.custom_url, image_version: record.image_version });
    const rest = (body: Record<string, unknown>) => call('POST', `/v2/data-plane/deployments/${id}/status`, { body });
    const graphql = async (input: Record<string, unknown>) => dataOf(await mutate(REPORT_DEPLOYMENT, { input: { deploymentId: id, ...input } })).reportDeploymentStatus;

    const original = await read();
    const untouched = (record: Record<string, any>) => {
      const { status, image_version, updated_at, source_config: { custom_url, ...sourceConfig }, ...rest } = record;
      return { ...rest, sourceConfig };
    };
    expect(shown(original)).toEqual({ status: original.status, custom_url: null, image_version: null });

    expect(await rest({ status: 'READY' })).toMatchObject({ status: 200, json: { deployment_id: id } });
    expect(shown(await read())).toEqual({ status: 'READY', custom_url: null, image_version: null });
    expect(await graphql({ customUrl: 'https://hello.acme.example' })).toEqual({ __typename: 'ReportDeploymentStatusPayload', deploymentId: id });
    expect(shown(await read())).toEqual({ status: 'READY', custom_url: 'https://hello.acme.example', image_version: null });
    expect((await rest({ image_version: '1.27.3' })).status).toBe(200);
    expect(shown(await read())).toEqual({ status: 'READY', custom_url: 'https://hello.acme.example', image_version: '1.27.3' });
    expect(await graphql({ status: 'UNUSED', imageVersion: null })).toMatchObject({ deploymentId: id });
    expect(shown(await read())).toEqual({ status: 'UNUSED', custom_url: 'https://hello.acme.example', image_version: null });
    expect((await rest({ custom_url: null })).status).toBe(200);
    expect(shown(await read())).toEqual({ status: 'UNUSED', custom_url: null, image_version: null });
    expect((await rest({})).status).toBe(200);
    const last = await read();
    expect(shown(last)).toEqual({ status: 'UNUSED', custom_url: null, image_version: null });
    expect(untouched(last)).toEqual(untouched(original));

    const bad = await rest({ status: 'ON_FIRE' });
    expect(bad.status).toBe(422);
    expect(bad.json.detail).toMatchObject([{ loc: ['body', 'status'], input: 'ON_FIRE' }]);
  });
});
