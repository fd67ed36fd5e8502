// Writes as attacks on another tenant (issue 42, "Who may write"): with a write key of ACME, GLOBEX's
// deployments, revisions and integration are as unknown ones (404, or the 422 of an unknown integration),
// nothing of GLOBEX's changes (read back with a GLOBEX key), a tenant the key was not granted is 403, on both
// doors. And a secret sent in a write never reaches the log, whether the write succeeds, is refused or fails.
import { EventEmitter, once } from 'node:events';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/observability/logger.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, ACME_DEPLOYMENT, ACME_INTEGRATION, GLOBEX, GLOBEX_DEPLOYMENT, GLOBEX_INTEGRATION, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { handMadeGlobalId } from './support/graphql-expect.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import { UNKNOWN_ID, deploymentNotFound, detail, expectJsonText, restCaller, revisionNotFound } from './support/write-calls.ts';

const CHECKOUT_DEPLOYED = '66666666-6666-4666-8666-666666666661';
const IMAGE = 'registry.example.com/globex/app@sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae';

let db: TestDatabase;
let app: RunningApp;
const keys = { acme: '', acmeReader: '', globex: '' };
const logLines: string[] = [];
/** Says 'line' whenever lines are added to logLines. */
const logged = new EventEmitter();
/** A revision of GLOBEX's deployment, made by GLOBEX before the attacks. */
let globexRevision: string;
/** GLOBEX's deployment as GraphQL names it. */
let globexGlobalId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  keys.acme = await issueKey(db.orm.em, [ACME], true, true);
  keys.acmeReader = await issueKey(db.orm.em, [ACME], true, false);
  keys.globex = await issueKey(db.orm.em, [GLOBEX], true, true);
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(...chunk.toString().split('\n').filter(Boolean));
      logged.emit('line');
      done();
    },
  });
  app = await startApp(db.orm, cipher, undefined, { options: { logger: createLogger('trace', destination) } });
  const patched = await call('PATCH', `/v2/deployments/${GLOBEX_DEPLOYMENT}`, { key: keys.globex, body: { source_revision_config: { image_uri: IMAGE } } });
  globexRevision = patched.json.latest_revision_id;
  const { body } = await app.graphql(`{ deployment(id: "${GLOBEX_DEPLOYMENT}") { id } }`, { 'x-api-key': keys.globex });
  globexGlobalId = body.data.deployment.id;
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const call = restCaller(() => app.url, () => keys.acme);
const cliCreate = (name: string, secrets: { name: string; value: string }[] = []) =>
  ({ name, source: 'internal_docker', source_config: { deployment_type: 'dev' }, source_revision_config: {}, secrets });
const githubCreate = (name: string, integrationId: string) => ({
  name, source: 'github', source_config: { integration_id: integrationId, repo_url: 'https://github.com/acme/checkout' },
  source_revision_config: { repo_ref: 'main', graph_config_path: 'graph.json' }, secrets: [],
});

/** Everything GLOBEX can read of its deployment (secret values included), and its ETag. */
async function globexView() {
  const read = (path: string) => call('GET', path, { key: keys.globex });
  const deployment = await read(`/v2/deployments/${GLOBEX_DEPLOYMENT}`);
  const list = await read('/v2/deployments');
  const revisions = await read(`/v2/deployments/${GLOBEX_DEPLOYMENT}/revisions`);
  return { status: deployment.status, deployment: deployment.text, etag: deployment.headers.get('etag'), list: list.text, revisions: revisions.text };
}
const acmeDeploymentCount = async () => Number((await db.query<{ n: number }>('select count(*)::int as n from deployment where tenant_id = $1', [ACME]))[0]!.n);

describe('REST: ACME\'s write key against GLOBEX', () => {
  it('PATCH, DELETE and redeploy of GLOBEX\'s deployment are 404, as for an unknown one (If-Match: * too); GLOBEX\'s data is unchanged', async () => {
    const before = await globexView();
    expect(before.status).toBe(200);
    const path = `/v2/deployments/${GLOBEX_DEPLOYMENT}`;
    for (const headers of [{}, { 'if-match': '*' }, { 'if-match': before.etag! }] as Record<string, string>[]) {
      expectJsonText(await call('PATCH', path, { headers, body: { source_revision_config: { image_uri: 'evil/image' }, secrets: [{ name: 'STOLEN', value: 'x' }] } }), 404, deploymentNotFound(GLOBEX_DEPLOYMENT));
      expectJsonText(await call('DELETE', path, { headers }), 404, deploymentNotFound(GLOBEX_DEPLOYMENT));
      expectJsonText(await call('POST', `${path}/revisions/${globexRevision}/redeploy`, { headers }), 404, deploymentNotFound(GLOBEX_DEPLOYMENT));
    }
    expectJsonText(await call('DELETE', `${path}?delete_tracing_project=true`), 404, deploymentNotFound(GLOBEX_DEPLOYMENT));
    expect(await globexView()).toEqual(before);
  });

  it('redeploy with GLOBEX\'s revision id on ACME\'s deployment is 404, as for an unknown revision', async () => {
    const revisions = (await call('GET', `/v2/deployments/${ACME_DEPLOYMENT}/revisions`)).text;
    expectJsonText(await call('POST', `/v2/deployments/${ACME_DEPLOYMENT}/revisions/${globexRevision}/redeploy`), 404, revisionNotFound(globexRevision));
    expect((await call('GET', `/v2/deployments/${ACME_DEPLOYMENT}/revisions`)).text).toBe(revisions);
  });

  it('a create naming GLOBEX\'s integration is refused as one naming an unknown integration (422); nothing is created', async () => {
    const count = await acmeDeploymentCount();
    const foreign = await call('POST', '/v2/deployments', { body: githubCreate('foreign-integration', GLOBEX_INTEGRATION) });
    const unknown = await call('POST', '/v2/deployments', { body: githubCreate('foreign-integration', UNKNOWN_ID) });
    expect(foreign.status).toBe(422);
    expect(foreign.json.detail.map((item: { loc: unknown }) => item.loc)).toEqual([['body', 'source_config', 'integration_id']]);
    expect(foreign.text).toBe(unknown.text.replaceAll(UNKNOWN_ID, GLOBEX_INTEGRATION));
    expect(await acmeDeploymentCount()).toBe(count);
    // ACME's own integration is accepted: the refusal above is the tenant boundary.
    expect((await call('POST', '/v2/deployments', { body: githubCreate('own-integration', ACME_INTEGRATION) })).status).toBe(201);
  });

  it('a PATCH naming GLOBEX\'s integration is 422 and changes nothing', async () => {
    const before = (await call('GET', `/v2/deployments/${ACME_DEPLOYMENT}`)).text;
    const answer = await call('PATCH', `/v2/deployments/${ACME_DEPLOYMENT}`, { body: { source_config: { integration_id: GLOBEX_INTEGRATION }, secrets: [] } });
    expect(answer.status).toBe(422);
    expect(answer.json.detail.map((item: { loc: unknown }) => item.loc)).toEqual([['body', 'source_config', 'integration_id']]);
    expect((await call('GET', `/v2/deployments/${ACME_DEPLOYMENT}`)).text).toBe(before);
  });

  it('a bulk delete mixing ACME\'s and GLOBEX\'s ids deletes only ACME\'s (207); GLOBEX\'s survive; GLOBEX\'s alone are 404', async () => {
    const globexOther = (await call('POST', '/v2/deployments', { key: keys.globex, body: cliCreate('globex-spare') })).json.id;
    const [first, second] = await Promise.all(['bulk-mine-1', 'bulk-mine-2'].map(async (name) => (await call('POST', '/v2/deployments', { body: cliCreate(name) })).json.id));
    const before = await globexView();
    const query = [first, GLOBEX_DEPLOYMENT, globexOther, second].map((id) => `deployment_ids=${id}`).join('&');
    const failed = (id: string) => ({ deployment_id: id, status: 404, detail: `Deployment ID ${id} not found.` });
    expectJsonText(await call('DELETE', `/v2/deployments?${query}`), 207, { deleted_ids: [first, second], failed: [failed(GLOBEX_DEPLOYMENT), failed(globexOther)] });
    expectJsonText(await call('DELETE', `/v2/deployments?deployment_ids=${globexOther}&deployment_ids=${GLOBEX_DEPLOYMENT}`), 404, deploymentNotFound(globexOther));
    expect(await globexView()).toEqual(before);
    expect((await call('GET', `/v2/deployments/${globexOther}`, { key: keys.globex })).status).toBe(200);
  });

  it.each([
    ['POST', '/v2/deployments', cliCreate('wrong-tenant')],
    ['PATCH', `/v2/deployments/${GLOBEX_DEPLOYMENT}`, { secrets: [] }],
    ['DELETE', `/v2/deployments/${GLOBEX_DEPLOYMENT}`, undefined],
    ['DELETE', `/v2/deployments?deployment_ids=${GLOBEX_DEPLOYMENT}`, undefined],
    ['POST', `/v2/deployments/${GLOBEX_DEPLOYMENT}/revisions/${CHECKOUT_DEPLOYED}/redeploy`, undefined],
  ])('%s %s with X-Tenant-Id of a tenant the key was not granted: 403, nothing written', async (method, path, body) => {
    const before = await globexView();
    const count = await acmeDeploymentCount();
    const sent = GLOBEX.toUpperCase();
    expectJsonText(await call(method, path, { body, headers: { 'x-tenant-id': sent } }), 403, detail(`Tenant ${sent} is not accessible with this API key`));
    expect(await globexView()).toEqual(before);
    expect(await acmeDeploymentCount()).toBe(count);
  });
});

describe('GraphQL: ACME\'s write key against GLOBEX', () => {
  const mutate = async (query: string, input: Record<string, unknown>) => {
    const { status, body } = await app.graphql(query, { 'x-api-key': keys.acme }, { input });
    expect({ status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
    return body.data;
  };
  const refusal = '__typename ... on MutationError { message } ... on DeploymentNotFoundError { id }';
  const redeployRefusal = `${refusal} ... on RevisionNotFoundError { id }`;

  it('update, delete and redeploy by GLOBEX\'s global id answer as for an unknown one: DeploymentNotFoundError', async () => {
    const before = await globexView();
    const unknownGlobalId = handMadeGlobalId('Deployment', UNKNOWN_ID);
    const attempts = (id: string) => Promise.all([
      mutate(`mutation($input: UpdateDeploymentInput!) { updateDeployment(input: $input) { ${refusal} } }`, { id, secrets: [], sourceRevisionConfig: { imageUri: 'evil/image' } }),
      mutate(`mutation($input: DeleteDeploymentInput!) { deleteDeployment(input: $input) { ${refusal} } }`, { id, ifMatch: '*' }),
      mutate(`mutation($input: RedeployRevisionInput!) { redeployRevision(input: $input) { ${redeployRefusal} } }`, { deploymentId: id, revisionId: globexRevision }),
    ]);
    const unknown = await attempts(unknownGlobalId);
    expect(unknown.map((data) => (Object.values(data)[0] as { __typename: string }).__typename)).toEqual(['DeploymentNotFoundError', 'DeploymentNotFoundError', 'DeploymentNotFoundError']);
    expect(JSON.stringify(await attempts(globexGlobalId))).toBe(JSON.stringify(unknown).replaceAll(UNKNOWN_ID, GLOBEX_DEPLOYMENT));
    expect(await globexView()).toEqual(before);
  });

  it('a bulk delete reports GLOBEX\'s ids, global or raw, as not found and deletes nothing of GLOBEX\'s', async () => {
    const before = await globexView();
    const bulk = (ids: string[]) => mutate('mutation($input: DeleteDeploymentsInput!) { deleteDeployments(input: $input) { deletedIds notFoundIds } }', { ids });
    const unknown = await bulk([handMadeGlobalId('Deployment', UNKNOWN_ID), UNKNOWN_ID]);
    expect(unknown.deleteDeployments.deletedIds).toEqual([]);
    expect(JSON.stringify(await bulk([globexGlobalId, GLOBEX_DEPLOYMENT]))).toBe(JSON.stringify(unknown).replaceAll(UNKNOWN_ID, GLOBEX_DEPLOYMENT));
    expect(await globexView()).toEqual(before);
  });

  it('redeploy of GLOBEX\'s revision on ACME\'s deployment is RevisionNotFoundError', async () => {
    const redeploy = await mutate(`mutation($input: RedeployRevisionInput!) { redeployRevision(input: $input) { ${redeployRefusal} } }`, { deploymentId: ACME_DEPLOYMENT, revisionId: globexRevision });
    expect(redeploy.redeployRevision).toEqual({ __typename: 'RevisionNotFoundError', message: `Revision ID ${globexRevision} not found.`, id: globexRevision });
  });
});

describe('secrets and the log', () => {
  const SECRET = 'sentinel-7d1f3a-never-logged';
  const secret = (n: number) => `${SECRET}-${n}`;
  const graphqlCreate = 'mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { __typename } }';

  it('no log line holds a secret sent in a write: succeeded, refused, failed in the database, on either door', async () => {
    // A write that fails inside its transaction (the database refuses a row), as a real failure would.
    await db.query(`create function refuse_exploding_secret() returns trigger language plpgsql as $$
      begin if new.name = 'EXPLODE' then raise exception 'refused by the test'; end if; return new; end $$`);
    await db.query('create trigger refuse_exploding_secret before insert on secret for each row execute function refuse_exploding_secret()');
    const linesBefore = logLines.length;
    const answers = [
      await call('POST', '/v2/deployments', { body: cliCreate('logged-create', [{ name: 'A', value: secret(1) }]) }),
      await call('PATCH', `/v2/deployments/${ACME_DEPLOYMENT}`, { body: { secrets: [{ name: 'A', value: secret(2) }] } }),
      await call('POST', '/v2/deployments', { body: { ...cliCreate('logged-invalid', [{ name: 'A', value: secret(3) }]), source: 'nope' } }),
      await call('POST', '/v2/deployments', { body: cliCreate('logged-create', [{ name: 'A', value: secret(4) }]) }),
      await call('POST', '/v2/deployments', { key: keys.acmeReader, body: cliCreate('logged-read-only', [{ name: 'A', value: secret(5) }]) }),
      await call('POST', '/v2/deployments', { body: cliCreate('logged-explodes', [{ name: 'EXPLODE', value: secret(6) }]) }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([201, 200, 422, 409, 403, 500]);
    const viaGraphql = await app.graphql(graphqlCreate, { 'x-api-key': keys.acme }, { input: { name: 'logged-graphql', source: 'INTERNAL_DOCKER', secrets: [{ name: 'EXPLODE', value: secret(7) }] } });
    expect(viaGraphql.body.errors?.[0]?.message).toBe('Unexpected error.');
    const inline = await app.graphql(`mutation { createDeployment(input: { name: "logged-inline", source: INTERNAL_DOCKER, secrets: [{ name: "EXPLODE", value: "${secret(8)}" }] }) { __typename } }`, { 'x-api-key': keys.acme });
    expect(inline.body.errors?.[0]?.message).toBe('Unexpected error.');
    // Every line of these requests is in: a request's access line is the last it logs (on its response's end).
    const requestIds = [...answers, viaGraphql, inline].map((answer) => answer.headers.get('x-request-id')!);
    const accessLogged = (id: string) => logLines.some((line) => line.includes(`"requestId":"${id}"`) && line.includes('"msg":"request"'));
    while (!requestIds.every(accessLogged)) await once(logged, 'line');
    const written = logLines.slice(linesBefore);
    // The failures were logged (so the log was looked at where a secret could have gone), and the requests too.
    expect(written.filter((line) => line.includes('"level":"error"')).length).toBeGreaterThanOrEqual(3);
    expect(written.filter((line) => line.includes('"msg":"request"')).length).toBeGreaterThanOrEqual(8);
    expect(written.filter((line) => line.includes(SECRET))).toEqual([]);
  });
});
