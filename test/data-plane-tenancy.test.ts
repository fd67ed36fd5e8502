// Attacks on the data-plane API (issue 43, item 1; docs/decisions.md#revision-lifecycle): a data plane of one
// tenant reaches nothing of another's, not even with a lease id it stole; keys without --reconcile are refused
// every data-plane route and mutation; a key of several tenants claims across them, or only in the tenant it
// names, and reads nothing without naming one; another tenant's build log is not found. Each refusal is
// checked to have changed nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPEND, CLAIM, claimThe, listenToTransitions, queuedDeployments, REPORT, REPORT_DEPLOYMENT, restPlane, storedRevision } from './support/data-plane.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME, GLOBEX, GLOBEX_DEPLOYMENT } from './support/fixtures.ts';
import { dataOf, expectGraphQLError, handMadeGlobalId } from './support/graphql-expect.ts';
import { deploymentNotFound, restCaller, revisionNotFound, UUID } from './support/write-calls.ts';

const NOT_A_DATA_PLANE = 'This API key is not a data plane\'s: issue one with `npm run apikey -- create --reconcile`';
const TENANT_REQUIRED = 'requires workspace specification';

type KeyName = 'acmeWriter' | 'globexWriter' | 'acmePlane' | 'globexPlane' | 'bothPlane' | 'writeOnly' | 'readOnly' | 'acmeReader' | 'globexReader';
let fixture: FixtureApp<KeyName>;
beforeAll(async () => {
  fixture = await startFixtureApp([], {
    acmeWriter: { tenants: [ACME], mayWrite: true },
    globexWriter: { tenants: [GLOBEX], mayWrite: true },
    acmePlane: { tenants: [ACME], mayReconcile: true },
    globexPlane: { tenants: [GLOBEX], mayReconcile: true },
    bothPlane: { tenants: [ACME, GLOBEX], mayReconcile: true },
    writeOnly: { tenants: [ACME], mayWrite: true },
    readOnly: { tenants: [ACME], mayReadSecrets: true },
    acmeReader: { tenants: [ACME] },
    globexReader: { tenants: [GLOBEX] },
  });
});
afterAll(() => fixture?.close());

const call = restCaller(() => fixture.app.url, () => fixture.keys.acmeReader);
const acmeQueued = (count = 1) => queuedDeployments(call, count, { prefix: 'acme-attack', key: fixture.keys.acmeWriter });
const globexQueued = (count = 1) => queuedDeployments(call, count, { prefix: 'globex-attack', key: fixture.keys.globexWriter });
const graphql = (key: string, query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fixture.app.graphql(query, { 'x-api-key': key, ...headers }, variables);

/** The four data-plane calls through REST, with a body each would take. */
const restCalls = (revisionId: string, deploymentId: string, leaseId: string) => [
  { path: '/v2/data-plane/claims', body: { limit: 100 } },
  { path: `/v2/data-plane/revisions/${revisionId}/status`, body: { lease_id: leaseId, status: 'DEPLOYED' } },
  { path: `/v2/data-plane/revisions/${revisionId}/logs`, body: { lease_id: leaseId, phase: 'build', first_line: 0, lines: [{ message: 'pwned' }] } },
  { path: `/v2/data-plane/deployments/${deploymentId}/status`, body: { status: 'UNUSED', custom_url: 'https://evil.example', image_version: 'evil' } },
];
/** The same four through GraphQL. */
const graphqlCalls = (revisionId: string, deploymentId: string, leaseId: string) => [
  { field: 'claimRevisions', query: CLAIM, variables: { limit: 100 } },
  { field: 'reportRevisionStatus', query: REPORT, variables: { input: { revisionId, leaseId, status: 'DEPLOYED' } } },
  { field: 'appendRevisionLogs', query: APPEND, variables: { input: { revisionId, leaseId, phase: 'BUILD', firstLine: 0, lines: [{ message: 'pwned' }] } } },
  { field: 'reportDeploymentStatus', query: REPORT_DEPLOYMENT, variables: { input: { deploymentId, status: 'UNUSED', customUrl: 'https://evil.example', imageVersion: 'evil' } } },
];

/** What an attack must leave as it was: the deployment record, the revision's status, its log, its transitions. */
async function snapshot(deploymentId: string, revisionId: string) {
  const deployment = await call('GET', `/v2/deployments/${deploymentId}`, { key: fixture.keys.acmeReader });
  expect(deployment.status).toBe(200);
  const lines = await fixture.db.query('select line from revision_log_line where revision_id = $1', [revisionId]);
  return { deployment: deployment.json, revision: await storedRevision(fixture.db, revisionId), lines };
}

describe('a data plane of another tenant', () => {
  it('cannot claim, report on, append to or report the deployment of ACME\'s, even with ACME\'s lease id', async () => {
    const [claimed] = await acmeQueued(1);
    const stolenLease = await claimThe(restPlane(call, fixture.keys.acmePlane), claimed!.revisionId);
    const [queued] = await acmeQueued(1);
    const transitions = await listenToTransitions(fixture.db);
    try {
      const before = await snapshot(claimed!.id, claimed!.revisionId);

      const claims = await call('POST', '/v2/data-plane/claims', { key: fixture.keys.globexPlane, body: { limit: 100 } });
      expect(claims.status).toBe(200);
      expect(claims.json.leases.filter((l: { tenant_id: string }) => l.tenant_id !== GLOBEX)).toEqual([]);
      expect(await storedRevision(fixture.db, queued!.revisionId)).toMatchObject({ status: 'QUEUED' });

      const [, status, logs, deployment] = restCalls(claimed!.revisionId, claimed!.id, stolenLease);
      for (const { path, body } of [status!, logs!]) {
        const answer = await call('POST', path, { key: fixture.keys.globexPlane, body });
        expect({ path, status: answer.status, json: answer.json }).toEqual({ path, status: 404, json: revisionNotFound(claimed!.revisionId) });
      }
      const reported = await call('POST', deployment!.path, { key: fixture.keys.globexPlane, body: deployment!.body });
      expect({ status: reported.status, json: reported.json }).toEqual({ status: 404, json: deploymentNotFound(claimed!.id) });

      // GraphQL, by raw id and by global id.
      const revisionGlobalId = dataOf(await graphql(fixture.keys.acmeReader, 'query R($id: ID!, $rid: ID!) { deployment(id: $id) { revision(id: $rid) { id } } }', {
        id: claimed!.id, rid: claimed!.revisionId,
      })).deployment.revision.id;
      for (const revisionId of [claimed!.revisionId, revisionGlobalId]) {
        const [, report, append, reportDeployment] = graphqlCalls(revisionId, claimed!.id, stolenLease);
        for (const { field, query, variables } of [report!, append!]) {
          const result = dataOf(await graphql(fixture.keys.globexPlane, query, variables))[field];
          expect(result).toEqual({ __typename: 'RevisionNotFoundError', message: `Revision ID ${claimed!.revisionId} not found.` });
        }
        const result = dataOf(await graphql(fixture.keys.globexPlane, reportDeployment!.query, reportDeployment!.variables)).reportDeploymentStatus;
        expect(result).toEqual({ __typename: 'DeploymentNotFoundError', message: `Deployment ID ${claimed!.id} not found.` });
      }
      // Naming ACME as its tenant does not help it.
      const named = await call('POST', status!.path, { key: fixture.keys.globexPlane, body: status!.body, headers: { 'x-tenant-id': ACME } });
      expect({ status: named.status, json: named.json }).toEqual({ status: 403, json: { detail: `Tenant ${ACME} is not accessible with this API key` } });

      expect(await snapshot(claimed!.id, claimed!.revisionId)).toEqual(before);
      await transitions.settled();
      expect([...transitions.of(claimed!.revisionId), ...transitions.of(queued!.revisionId)]).toEqual([]);
      // The lease still works for its holder.
      expect(await restPlane(call, fixture.keys.acmePlane).report(claimed!.revisionId, stolenLease, 'BUILDING')).toEqual({ applied: true });
    } finally {
      await transitions.close();
    }
  });
});

describe('keys that are no data plane\'s', () => {
  it('get 403 on every data-plane route and FORBIDDEN on every data-plane mutation, and change nothing', async () => {
    const [target] = await acmeQueued(1);
    const lease = await claimThe(restPlane(call, fixture.keys.acmePlane), target!.revisionId);
    const before = await snapshot(target!.id, target!.revisionId);
    for (const key of ['writeOnly', 'readOnly'] as const) {
      for (const { path, body } of restCalls(target!.revisionId, target!.id, lease)) {
        const answer = await call('POST', path, { key: fixture.keys[key], body });
        expect({ key, path, status: answer.status, json: answer.json }).toEqual({ key, path, status: 403, json: { detail: NOT_A_DATA_PLANE } });
      }
      for (const { field, query, variables } of graphqlCalls(target!.revisionId, target!.id, lease)) {
        const answer = await graphql(fixture.keys[key], query, variables);
        expect({ key, field, code: answer.body.errors?.[0]?.extensions?.code }).toEqual({ key, field, code: 'FORBIDDEN' });
        expectGraphQLError(answer, 'FORBIDDEN', NOT_A_DATA_PLANE);
      }
    }
    expect(await snapshot(target!.id, target!.revisionId)).toEqual(before);
  });
});

describe('a data plane of several tenants', () => {
  it('claims across its tenants without X-Tenant-Id, and only in the tenant it names with it', async () => {
    const acme = await acmeQueued(2);
    const globex = await globexQueued(2);
    const both = (headers: Record<string, string> = {}) => restPlane(call, fixture.keys.bothPlane, headers);

    const named = await both({ 'x-tenant-id': GLOBEX }).claim(100);
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((l) => l.tenantId !== GLOBEX)).toEqual([]);
    expect(named.map((l) => l.revisionId)).toEqual(expect.arrayContaining(globex.map((d) => d.revisionId)));
    for (const { revisionId } of acme) expect(await storedRevision(fixture.db, revisionId)).toMatchObject({ status: 'QUEUED' });

    // Named ACME, it reaches none of GLOBEX's, not even the revision it holds the lease of.
    const globexLease = named.find((l) => l.revisionId === globex[0]!.revisionId)!;
    expect(await both({ 'x-tenant-id': ACME }).report(globexLease.revisionId, globexLease.leaseId, 'BUILDING')).toEqual({ refused: 'RevisionNotFoundError' });
    expect(await both().report(globexLease.revisionId, globexLease.leaseId, 'BUILDING')).toEqual({ applied: true });

    const later = [...await acmeQueued(1), ...await globexQueued(1)];
    const across = await both().claim(100);
    const tenantOf = Object.fromEntries(across.map((l) => [l.revisionId, l.tenantId]));
    for (const { revisionId } of [...acme, later[0]!]) expect(tenantOf[revisionId]).toBe(ACME);
    expect(tenantOf[later[1]!.revisionId]).toBe(GLOBEX);
  });

  it('reads nothing without naming a tenant: 403 on REST reads, FORBIDDEN on queries and on the records beside its claims', async () => {
    const read = await call('GET', '/v2/deployments', { key: fixture.keys.bothPlane });
    expect({ status: read.status, json: read.json }).toEqual({ status: 403, json: { detail: TENANT_REQUIRED } });
    expectGraphQLError(await graphql(fixture.keys.bothPlane, '{ deployments { resources { id } } }'), 'FORBIDDEN', TENANT_REQUIRED);

    const [deployment] = await acmeQueued(1);
    const claimed = await graphql(fixture.keys.bothPlane, 'mutation { claimRevisions(input: { limit: 100 }) { leases { revisionId leaseId tenantId revision { id status } } } }');
    const errors = claimed.body.errors as { message: string; path: (string | number)[]; extensions: { code: string } }[];
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) {
      expect(error).toMatchObject({ message: TENANT_REQUIRED, extensions: { code: 'FORBIDDEN' } });
      expect(error.path).toEqual(['claimRevisions', 'leases', expect.any(Number), 'revision']);
    }
    // The claim happened, and its ids are in the answer: the data plane can go on with X-Tenant-Id.
    const leases = claimed.body.data.claimRevisions.leases as { revisionId: string; leaseId: string; tenantId: string; revision: unknown }[];
    const lease = leases.find((l) => l.revisionId === deployment!.revisionId)!;
    expect(lease).toEqual({ revisionId: deployment!.revisionId, leaseId: expect.stringMatching(UUID), tenantId: ACME, revision: null });
    expect(await storedRevision(fixture.db, deployment!.revisionId)).toMatchObject({ status: 'AWAITING_BUILD' });
    // So do a report's: it is applied, and says so, beside the refused record.
    const reportSelectingRevision = REPORT.replace('{ revisionId status applied leaseExpiresAt }', '{ revisionId applied revision { status } }');
    const input = { revisionId: lease.revisionId, leaseId: lease.leaseId, status: 'BUILDING' };
    const withoutTenant = await graphql(fixture.keys.bothPlane, reportSelectingRevision, { input });
    expect(withoutTenant.body.errors).toMatchObject([{ message: TENANT_REQUIRED, path: ['reportRevisionStatus', 'revision'], extensions: { code: 'FORBIDDEN' } }]);
    expect(withoutTenant.body.data.reportRevisionStatus).toEqual({ __typename: 'ReportRevisionStatusPayload', revisionId: lease.revisionId, applied: true, revision: null });
    const withTenant = await graphql(fixture.keys.bothPlane, reportSelectingRevision, { input }, { 'x-tenant-id': lease.tenantId });
    expect(dataOf(withTenant).reportRevisionStatus).toEqual({ __typename: 'ReportRevisionStatusPayload', revisionId: lease.revisionId, applied: false, revision: { status: 'BUILDING' } });
  });
});

describe('build logs', () => {
  it('of another tenant\'s revision are not found, whichever deployment id is sent with it', async () => {
    const [deployment] = await acmeQueued(1);
    const lease = await claimThe(restPlane(call, fixture.keys.acmePlane), deployment!.revisionId);
    const appended = await call('POST', `/v2/data-plane/revisions/${deployment!.revisionId}/logs`, {
      key: fixture.keys.acmePlane, body: { lease_id: lease, phase: 'build', first_line: 0, lines: [{ message: 'secret build output' }] },
    });
    expect(appended.json).toMatchObject({ appended: 1 });
    const own = await call('POST', `/v1/projects/${deployment!.id}/revisions/${deployment!.revisionId}/build_logs`, { key: fixture.keys.acmeReader, body: {} });
    expect(own.json.logs.map((l: { message: string }) => l.message)).toEqual(['secret build output']);

    const viaAcmeDeployment = await call('POST', `/v1/projects/${deployment!.id}/revisions/${deployment!.revisionId}/build_logs`, { key: fixture.keys.globexReader, body: {} });
    expect({ status: viaAcmeDeployment.status, json: viaAcmeDeployment.json }).toEqual({ status: 404, json: deploymentNotFound(deployment!.id) });
    const viaOwnDeployment = await call('POST', `/v1/projects/${GLOBEX_DEPLOYMENT}/revisions/${deployment!.revisionId}/build_logs`, { key: fixture.keys.globexReader, body: {} });
    expect({ status: viaOwnDeployment.status, json: viaOwnDeployment.json }).toEqual({ status: 404, json: revisionNotFound(deployment!.revisionId) });
    for (const rid of [deployment!.revisionId, handMadeGlobalId('Revision', deployment!.revisionId)]) {
      const logs = await graphql(fixture.keys.globexReader, 'query L($id: ID!, $rid: ID!) { deployment(id: $id) { revision(id: $rid) { logs { edges { node { message } } } } } }', {
        id: GLOBEX_DEPLOYMENT, rid,
      });
      expect(dataOf(logs).deployment).toEqual({ revision: null });
    }
  });
});
