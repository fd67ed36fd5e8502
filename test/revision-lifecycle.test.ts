// The revision lifecycle as data planes and clients see it (docs/decisions.md#revision-lifecycle): claims,
// reports checked against the state machine, DEPLOYED making the active revision, SKIPPED for a queued revision
// superseded, log lines stored once and read back by the CLI's build_logs call, and who may do any of it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME, GLOBEX, newCipher } from './support/fixtures.ts';
import { importExtra, newerAcmeDeployments } from './support/graphql-expect.ts';
import { deploymentRecord } from './support/live-data.ts';
import { restCaller, TIMESTAMP, UUID } from './support/write-calls.ts';
import { MAX_LOG_LINE_CHARS } from '../src/modules/revisions/lifecycle/data-plane-writer.ts';

// A deployment imported with a revision in progress: the original's data plane was building it, none here is.
const IMPORTED_BUILDING = 'bbbbbbbb-0000-4000-8000-000000000043';
const [importedDeployment] = newerAcmeDeployments(1, () => ({
  name: 'imported-while-building', latest_revision_id: IMPORTED_BUILDING,
  revisions: [{ id: IMPORTED_BUILDING, status: 'BUILDING', created_at: '2030-01-01T00:00:00Z' }],
}));

let fixture: FixtureApp<'writer' | 'plane' | 'globexPlane' | 'twoTenantPlane' | 'reader'>;
beforeAll(async () => {
  fixture = await startFixtureApp([{ deployments: [importedDeployment!] }], {
    writer: { tenants: [ACME], mayWrite: true },
    plane: { tenants: [ACME], mayReconcile: true },
    globexPlane: { tenants: [GLOBEX], mayReconcile: true },
    twoTenantPlane: { tenants: [ACME, GLOBEX], mayReconcile: true },
    reader: { tenants: [ACME], mayReadSecrets: true },
  });
});
afterAll(() => fixture?.close());

const call = restCaller(() => fixture.app.url, () => fixture.keys.writer);

let sequence = 0;
/** A new deployment of ACME's with one QUEUED revision; its id and that revision's. */
async function queuedDeployment(): Promise<{ id: string; revisionId: string }> {
  const created = await call('POST', '/v2/deployments', {
    body: { name: `lifecycle-${++sequence}-${Date.now()}`, source: 'external_docker', source_config: {}, source_revision_config: { image_uri: 'nginx:1.27' }, secrets: [] },
  });
  expect(created.status).toBe(201);
  return { id: created.json.id, revisionId: created.json.latest_revision_id };
}

/** Claims until the revision is among the leases (older queued revisions of the fixture may come first). */
async function claim(revisionId: string, key = fixture.keys.plane): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const answer = await call('POST', '/v2/data-plane/claims', { key, body: { limit: 100 } });
    expect(answer.status).toBe(200);
    const lease = answer.json.leases.find((l: { revision_id: string }) => l.revision_id === revisionId);
    if (lease) return lease.lease_id;
    if (answer.json.leases.length === 0) break;
  }
  throw new Error(`revision ${revisionId} was not claimed`);
}

const report = (revisionId: string, leaseId: string, status: string, key = fixture.keys.plane, message?: string) =>
  call('POST', `/v2/data-plane/revisions/${revisionId}/status`, { key, body: { lease_id: leaseId, status, ...(message && { message }) } });

const revisionStatus = async (deploymentId: string, revisionId: string) =>
  (await call('GET', `/v2/deployments/${deploymentId}/revisions/${revisionId}`, { key: fixture.keys.reader })).json.status;

describe('a data plane walks a revision to DEPLOYED', () => {
  it('claims it, reports each step, and the deployment gets it as its active revision', async () => {
    const { id, revisionId } = await queuedDeployment();
    expect(await revisionStatus(id, revisionId)).toBe('QUEUED');
    const leaseId = await claim(revisionId);
    expect(leaseId).toMatch(UUID);
    expect(await revisionStatus(id, revisionId)).toBe('AWAITING_BUILD');
    for (const status of ['BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING']) {
      const answer = await report(revisionId, leaseId, status);
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ revision_id: revisionId, status, applied: true, lease_expires_at: expect.stringMatching(TIMESTAMP) });
      expect(await revisionStatus(id, revisionId)).toBe(status);
    }
    const deployed = await report(revisionId, leaseId, 'DEPLOYED');
    expect(deployed.json).toEqual({ revision_id: revisionId, status: 'DEPLOYED', applied: true, lease_expires_at: null });
    const deployment = await call('GET', `/v2/deployments/${id}`, { key: fixture.keys.reader });
    expect(deployment.json.active_revision_id).toBe(revisionId);
  });

  it('applies a retried report once: the same status again changes nothing but the lease', async () => {
    const { id, revisionId } = await queuedDeployment();
    const leaseId = await claim(revisionId);
    const first = await report(revisionId, leaseId, 'BUILDING');
    const before = (await call('GET', `/v2/deployments/${id}/revisions/${revisionId}`)).json.updated_at;
    const retried = await report(revisionId, leaseId, 'BUILDING');
    expect(retried.status).toBe(200);
    expect(retried.json.applied).toBe(false);
    expect(Date.parse(retried.json.lease_expires_at)).toBeGreaterThanOrEqual(Date.parse(first.json.lease_expires_at));
    expect((await call('GET', `/v2/deployments/${id}/revisions/${revisionId}`)).json.updated_at).toBe(before);
    // A final report retried is answered as applied before, also once the lease no longer runs.
    await report(revisionId, leaseId, 'BUILD_FAILED');
    const again = await report(revisionId, leaseId, 'BUILD_FAILED');
    expect(again.json).toEqual({ revision_id: revisionId, status: 'BUILD_FAILED', applied: false, lease_expires_at: null });
  });
});

describe('the state machine', () => {
  it('refuses a step back or out of a final status, naming both, and changes nothing', async () => {
    const { id, revisionId } = await queuedDeployment();
    const leaseId = await claim(revisionId);
    await report(revisionId, leaseId, 'DEPLOYING');
    const back = await report(revisionId, leaseId, 'BUILDING');
    expect(back.status).toBe(409);
    expect(back.json).toEqual({ detail: `Revision ${revisionId} cannot go from DEPLOYING to BUILDING.` });
    expect(await revisionStatus(id, revisionId)).toBe('DEPLOYING');
    await report(revisionId, leaseId, 'DEPLOY_FAILED', fixture.keys.plane, 'readiness probe failed');
    const revived = await report(revisionId, leaseId, 'DEPLOYED');
    expect(revived.status).toBe(409);
    expect(revived.json.detail).toBe(`Revision ${revisionId} has ended (DEPLOY_FAILED): it cannot go to DEPLOYED.`);
    // A failed revision leaves the active one alone.
    expect((await call('GET', `/v2/deployments/${id}`)).json.active_revision_id).toBeNull();
  });

  it('skips a queued revision that a newer one supersedes before any data plane claimed it', async () => {
    const { id, revisionId: first } = await queuedDeployment();
    const patched = await call('PATCH', `/v2/deployments/${id}`, { body: { source_revision_config: { image_uri: 'nginx:1.28' } } });
    expect(patched.status).toBe(200);
    expect(await revisionStatus(id, first)).toBe('SKIPPED');
    expect(await revisionStatus(id, patched.json.latest_revision_id)).toBe('QUEUED');
  });

  it('keeps one revision of a deployment in progress at a time: the next is claimable once the first ended', async () => {
    const { id, revisionId: first } = await queuedDeployment();
    const leaseId = await claim(first);
    const second = (await call('PATCH', `/v2/deployments/${id}`, { body: { source_revision_config: { image_uri: 'nginx:1.28' } } })).json.latest_revision_id;
    expect(await revisionStatus(id, first)).toBe('AWAITING_BUILD');
    const meanwhile = await call('POST', '/v2/data-plane/claims', { key: fixture.keys.plane, body: { limit: 100 } });
    expect(meanwhile.json.leases.map((l: { revision_id: string }) => l.revision_id)).not.toContain(second);
    await report(first, leaseId, 'DEPLOYED');
    expect(await claim(second)).toMatch(UUID);
  });

  it('is not held back by a revision imported in progress, which no data plane here holds', async () => {
    const patched = await call('PATCH', `/v2/deployments/${importedDeployment!.id}`, { body: { source_revision_config: { repo_ref: 'main' } } });
    expect(patched.status, patched.text).toBe(200);
    expect(await claim(patched.json.latest_revision_id)).toMatch(UUID);
    // The imported revision is left as the original reported it: the service changes no status on its own.
    expect(await revisionStatus(importedDeployment!.id, IMPORTED_BUILDING)).toBe('BUILDING');
  });

  it('claims only the oldest of a deployment\'s queued revisions (an import may leave several), also with two claims at once', async () => {
    const [id, older, newer] = [randomUUID(), randomUUID(), randomUUID()];
    await importExtra(fixture.db.orm.em, newCipher(), { deployments: [deploymentRecord(id, ACME, `two-queued-${Date.now()}`, 'READY', {
      revisions: [{ id: older, status: 'QUEUED', created_at: '2026-03-01T00:00:00Z' }, { id: newer, status: 'QUEUED', created_at: '2026-03-02T00:00:00Z' }],
      latest_revision_id: newer,
    })] });
    const claims = await Promise.all([fixture.keys.plane, fixture.keys.twoTenantPlane].map((key) => call('POST', '/v2/data-plane/claims', { key, body: { limit: 100 } })));
    const ofDeployment = claims.flatMap((answer) => answer.json.leases).filter((l: { deployment_id: string }) => l.deployment_id === id);
    expect(ofDeployment.map((l: { revision_id: string }) => l.revision_id)).toEqual([older]);
    expect(await revisionStatus(id, newer)).toBe('QUEUED');
  });
});

describe('leases', () => {
  it('refuses a report under a lease that is not the revision\'s', async () => {
    const { revisionId } = await queuedDeployment();
    await claim(revisionId);
    const stranger = await report(revisionId, '11111111-1111-4111-8111-111111111111', 'BUILDING');
    expect(stranger.status).toBe(409);
    expect(stranger.json).toEqual({
      detail: `The lease on revision ${revisionId} is not held by this report (the revision is AWAITING_BUILD now); stop working on it.`, status: 'AWAITING_BUILD',
    });
  });
});

describe('log lines', () => {
  it('stores lines once however often they are sent, refuses a gap, and the CLI reads them back', async () => {
    const { id, revisionId } = await queuedDeployment();
    const leaseId = await claim(revisionId);
    const append = (firstLine: number, messages: string[]) => call('POST', `/v2/data-plane/revisions/${revisionId}/logs`, {
      key: fixture.keys.plane, body: { lease_id: leaseId, phase: 'build', first_line: firstLine, lines: messages.map((message) => ({ message })) },
    });
    expect((await append(0, ['step 1', 'step 2'])).json).toMatchObject({ appended: 2, next_line: 2 });
    expect((await append(0, ['step 1', 'step 2'])).json).toMatchObject({ appended: 0, next_line: 2 });
    expect((await append(1, ['step 2', 'step 3'])).json).toMatchObject({ appended: 1, next_line: 3 });
    const gap = await append(5, ['step 6']);
    expect(gap.status).toBe(409);
    expect(gap.json).toEqual({ detail: 'The append starts at line 5, after a gap: the next line expected is 3.', expected_line: 3 });

    const buildLogs = (body: unknown) => call('POST', `/v1/projects/${id}/revisions/${revisionId}/build_logs`, { key: fixture.keys.reader, body });
    const asc = await buildLogs({ order: 'asc', limit: 2 });
    expect(asc.status).toBe(200);
    expect(asc.json.logs.map((l: { message: string }) => l.message)).toEqual(['step 1', 'step 2']);
    expect(asc.json.next_offset).toBe(2);
    expect((await buildLogs({ order: 'asc', limit: 50, offset: 2 })).json).toMatchObject({ logs: [{ message: 'step 3' }], next_offset: 3 });
    expect((await buildLogs({ order: 'desc', limit: 30 })).json.logs.map((l: { message: string }) => l.message)).toEqual(['step 3', 'step 2', 'step 1']);
  });
});

describe('who may', () => {
  it('refuses the data-plane routes to a key without the reconcile permission', async () => {
    const answer = await call('POST', '/v2/data-plane/claims', { key: fixture.keys.writer, body: {} });
    expect(answer.status).toBe(403);
    expect(answer.json.detail).toContain('--reconcile');
  });

  it('never lets a data plane claim, report on or see another tenant\'s revisions', async () => {
    const { id, revisionId } = await queuedDeployment();
    const foreign = await call('POST', '/v2/data-plane/claims', { key: fixture.keys.globexPlane, body: { limit: 100 } });
    expect(foreign.json.leases.map((l: { revision_id: string }) => l.revision_id)).not.toContain(revisionId);
    const leaseId = await claim(revisionId);
    const hijack = await report(revisionId, leaseId, 'DEPLOYED', fixture.keys.globexPlane);
    expect(hijack.status).toBe(404);
    expect(hijack.json).toEqual({ detail: `Revision ID ${revisionId} not found.` });
    expect(await revisionStatus(id, revisionId)).toBe('AWAITING_BUILD');
  });

  it('lets a key of several tenants claim across them without naming one, but read nothing without naming it', async () => {
    const { revisionId } = await queuedDeployment();
    expect(await claim(revisionId, fixture.keys.twoTenantPlane)).toMatch(UUID);
    const read = await call('GET', '/v2/deployments', { key: fixture.keys.twoTenantPlane });
    expect(read.status).toBe(403);
    expect(read.json).toEqual({ detail: 'requires workspace specification' });
  });
});

describe('text and times PostgreSQL cannot store (docs/decisions.md#text-and-json-the-database-can-hold)', () => {
  const NUL = 'must not contain NUL characters';
  const SURROGATE = 'must not contain unpaired surrogates (U+D800 to U+DFFF)';
  const valueError = (loc: (string | number)[], input: string, error: string) => ({ type: 'value_error', loc: ['body', ...loc], msg: `Value error, ${error}`, input, ctx: { error } });
  const graphqlRefusal = async (document: string, input: Record<string, unknown>) =>
    (await fixture.app.graphql(document, { 'x-api-key': fixture.keys.plane }, { input })).body.errors?.[0];

  it('refuses a NUL character or an unpaired surrogate in a log line, a level, a message, a URL or an image version on both doors (422, BAD_USER_INPUT), storing nothing', async () => {
    const { id, revisionId } = await queuedDeployment();
    const leaseId = await claim(revisionId);
    const append = await call('POST', `/v2/data-plane/revisions/${revisionId}/logs`, {
      key: fixture.keys.plane, body: { lease_id: leaseId, phase: 'build', first_line: 0, lines: [{ message: 'ok' }, { message: 'binary\u0000output', level: 'in\ud800fo' }] },
    });
    expect(append.status, append.text).toBe(422);
    expect(append.json.detail).toEqual([valueError(['lines', 1, 'message'], 'binary\u0000output', NUL), valueError(['lines', 1, 'level'], 'in\ud800fo', SURROGATE)]);
    const failed = await report(revisionId, leaseId, 'BUILD_FAILED', fixture.keys.plane, 'exit\u0000code 1');
    expect(failed.status, failed.text).toBe(422);
    expect(failed.json.detail).toEqual([valueError(['message'], 'exit\u0000code 1', NUL)]);
    const url = await call('POST', `/v2/data-plane/deployments/${id}/status`, { key: fixture.keys.plane, body: { custom_url: 'https://x\u0000y.example', image_version: '\udc00' } });
    expect(url.status, url.text).toBe(422);
    expect(url.json.detail).toEqual([valueError(['custom_url'], 'https://x\u0000y.example', NUL), valueError(['image_version'], '\udc00', SURROGATE)]);

    const lines = await graphqlRefusal('mutation($input: AppendRevisionLogsInput!) { appendRevisionLogs(input: $input) { __typename } }',
      { revisionId, leaseId, phase: 'BUILD', firstLine: 0, lines: [{ message: 'ok' }, { message: 'ok', level: 'in\u0000fo' }] });
    expect(lines).toMatchObject({ message: `Invalid argument "input.lines[1].level": ${NUL}.`, extensions: { code: 'BAD_USER_INPUT', argument: 'input.lines[1].level' } });
    const message = await graphqlRefusal('mutation($input: ReportRevisionStatusInput!) { reportRevisionStatus(input: $input) { __typename } }',
      { revisionId, leaseId, status: 'BUILD_FAILED', message: 'exit\ud800' });
    expect(message).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', argument: 'input.message' } });
    const version = await graphqlRefusal('mutation($input: ReportDeploymentStatusInput!) { reportDeploymentStatus(input: $input) { __typename } }',
      { deploymentId: id, customUrl: 'https://ok.example', imageVersion: '1.0\u0000' });
    expect(version).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', argument: 'input.imageVersion' } });

    expect((await call('POST', `/v1/projects/${id}/revisions/${revisionId}/build_logs`, { key: fixture.keys.reader, body: {} })).json.logs).toEqual([]);
    expect(await revisionStatus(id, revisionId)).toBe('AWAITING_BUILD');
    expect((await call('GET', `/v2/deployments/${id}`, { key: fixture.keys.reader })).json.source_config.custom_url).toBeNull();
  });

  it('cuts a line too long before a surrogate pair, not inside it', async () => {
    const { id, revisionId } = await queuedDeployment();
    const leaseId = await claim(revisionId);
    const long = `${'a'.repeat(MAX_LOG_LINE_CHARS - 1)}\u{1F600}tail`;
    const append = await call('POST', `/v2/data-plane/revisions/${revisionId}/logs`, {
      key: fixture.keys.plane, body: { lease_id: leaseId, phase: 'build', first_line: 0, lines: [{ message: long }] },
    });
    expect(append.status, append.text).toBe(200);
    const [line] = (await call('POST', `/v1/projects/${id}/revisions/${revisionId}/build_logs`, { key: fixture.keys.reader, body: {} })).json.logs;
    expect(line.message).toBe(`${'a'.repeat(MAX_LOG_LINE_CHARS - 1)}… [cut]`);
  });

  it('refuses a log line\'s time outside the years 1 to 9999 on both doors (422, BAD_USER_INPUT), storing nothing', async () => {
    const { id, revisionId } = await queuedDeployment();
    const leaseId = await claim(revisionId);
    const refused = await call('POST', `/v2/data-plane/revisions/${revisionId}/logs`, {
      key: fixture.keys.plane, body: { lease_id: leaseId, phase: 'build', first_line: 0, lines: [{ message: 'ok' }, { message: 'far', timestamp: '0000-01-01T00:00:00Z' }] },
    });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.json.detail).toMatchObject([{ type: 'value_error', loc: ['body', 'lines', 1, 'timestamp'], input: '0000-01-01T00:00:00Z' }]);
    const graphql = await fixture.app.graphql(
      `mutation($input: AppendRevisionLogsInput!) { appendRevisionLogs(input: $input) { __typename } }`,
      { 'x-api-key': fixture.keys.plane },
      { input: { revisionId, leaseId, phase: 'BUILD', firstLine: 0, lines: [{ message: 'far', timestamp: '9999-12-31T23:59:59-14:00' }] } },
    );
    expect(graphql.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'input.lines[0].timestamp' });
    expect((await call('POST', `/v1/projects/${id}/revisions/${revisionId}/build_logs`, { key: fixture.keys.reader, body: {} })).json.logs).toEqual([]);
  });

  it.each([['without seconds', '2030-01-01T10:15Z'], ['a day its month has not', '2030-02-30T10:15:00Z']])(
    'refuses a log line\'s time the DateTime scalar does not read (%s) on the REST door too: 422 in its words, storing nothing',
    async (_name, timestamp) => {
      const { id, revisionId } = await queuedDeployment();
      const leaseId = await claim(revisionId);
      const refused = await call('POST', `/v2/data-plane/revisions/${revisionId}/logs`, {
        key: fixture.keys.plane, body: { lease_id: leaseId, phase: 'build', first_line: 0, lines: [{ message: 'ok', timestamp }] },
      });
      const error = `DateTime cannot represent an invalid date-time-string ${timestamp}`;
      expect(refused.status, refused.text).toBe(422);
      expect(refused.json).toEqual({ detail: [{ type: 'value_error', loc: ['body', 'lines', 0, 'timestamp'], msg: `Value error, ${error}`, input: timestamp, ctx: { error } }] });
      expect((await call('POST', `/v1/projects/${id}/revisions/${revisionId}/build_logs`, { key: fixture.keys.reader, body: {} })).json.logs).toEqual([]);
    },
  );
});

describe('a data plane of several tenants', () => {
  it('gets its claim\'s lease ids with 200 when it selects records it cannot read without naming a tenant', async () => {
    const { revisionId } = await queuedDeployment();
    let lease: { revisionId: string; leaseId: string; revision: unknown } | undefined;
    for (let attempt = 0; attempt < 50 && !lease; attempt++) {
      const answer = await fixture.app.graphql('mutation { claimRevisions(input: { limit: 100 }) { leases { revisionId leaseId revision { uuid } } } }', { 'x-api-key': fixture.keys.twoTenantPlane });
      expect(answer.status).toBe(200);
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      lease = answer.body.data.claimRevisions.leases.find((l: { revisionId: string }) => l.revisionId === revisionId);
    }
    expect(lease).toMatchObject({ revisionId, leaseId: expect.stringMatching(UUID), revision: null });
  });
});
