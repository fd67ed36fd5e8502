// The same write through either door gives the same deployment (issue 42: "REST and GraphQL give the same
// result for the same write"): a create and a PATCH with identical inputs, once as the original's REST bodies
// and once as the mutations' input objects (translated here by hand), then read back through REST; and the same
// refusals for the same invalid values and for a name taken.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME } from './support/fixtures.ts';
import { restCaller } from './support/write-calls.ts';
import { DeploymentSchema } from '../src/modules/deployments/deployment.entity.ts';
import { newDeploymentProperties } from '../src/modules/deployments/writes/deployment-writer.ts';
import { validateCreateRequest } from '../src/modules/deployments/writes/validate-write-request.ts';
import { uploadArchive } from './support/object-http.ts';

const IMAGE = 'registry.example.com/acme/agent@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const NEXT_IMAGE = 'registry.example.com/acme/agent@sha256:60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752';
const LISTENER = '44444444-4444-4444-8444-444444444444';

let fixture: FixtureApp<'writer'>;
beforeAll(async () => {
  fixture = await startFixtureApp([], { writer: { tenants: [ACME], mayWrite: true, mayReadSecrets: true } });
  // The listener the deployments below name (a create needs a listener of the tenant and one of its namespaces).
  await fixture.db.query(`insert into listener (id, tenant_id, compute_type, compute_id, k8s_namespaces, created_at, updated_at)
    values ($1, $2, 'k8s', 'agents-cluster', '["agents"]'::jsonb, now(), now())`, [LISTENER, ACME]);
});
afterAll(() => fixture?.close());

const call = restCaller(() => fixture.app.url, () => fixture.keys.writer);
const graphql = async (query: string, input: Record<string, unknown>) => {
  const { status, body } = await fixture.app.graphql(query, { 'x-api-key': fixture.keys.writer }, { input });
  expect({ status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
  return Object.values(body.data)[0] as any;
};
const CREATE = `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) {
  __typename ... on CreateDeploymentPayload { deployment { uuid } } ... on MutationError { message }
  ... on InvalidInputError { problems { restLocation type message input context } } } }`;
const UPDATE = `mutation($input: UpdateDeploymentInput!) { updateDeployment(input: $input) {
  __typename ... on UpdateDeploymentPayload { deployment { uuid } } ... on MutationError { message }
  ... on InvalidInputError { problems { restLocation type message input context } } } }`;
const UPLOAD = `mutation($input: CreateSourceUploadInput!) { createSourceUpload(input: $input) {
  __typename ... on CreateSourceUploadPayload { uploadUrl objectPath } ... on MutationError { message } } }`;

/** An InvalidInputError's problems as the REST door's 422 items. */
const asRestItems = (problems: { restLocation: string[]; type: string; message: string; input: unknown; context: unknown }[]) => problems.map((problem) => ({
  type: problem.type, loc: ['body', ...problem.restLocation.map((part) => (/^\d+$/.test(part) ? Number(part) : part))],
  msg: problem.message, input: problem.input, ...(problem.context ? { ctx: problem.context } : {}),
}));

const restCreate = (name: string) => ({
  name, source: 'external_docker',
  source_config: {
    custom_url: 'https://agent.acme.example', listener_id: LISTENER, listener_config: { k8s_namespace: 'agents' }, deployment_type: 'prod',
    resource_spec: {
      min_scale: 1, max_scale: 4, cpu: 1.26, memory_mb: 512, labels: { team: 'ai' }, image_pull_secrets: [{ name: 'registry' }],
      volume_mounts: [{ name: 'data', mountPath: '/data', readOnly: true }], sidecars: [{ name: 'proxy', image: 'envoy:1', env: [{ name: 'MODE', value: 'fast' }] }],
    },
  },
  source_revision_config: { image_uri: IMAGE },
  secrets: [{ name: 'API_TOKEN', value: 's3cret' }, { name: 'LOG_LEVEL', value: 'debug' }],
  secret_references: [{ name: 'SMTP_PASSWORD', secret_name: 'mail', secret_key: 'password' }],
});
const graphqlCreate = (name: string) => ({
  name, source: 'EXTERNAL_DOCKER',
  sourceConfig: {
    customUrl: 'https://agent.acme.example', listenerId: LISTENER, listenerConfig: { k8sNamespace: 'agents' }, deploymentType: 'PROD',
    resourceSpec: {
      minScale: 1, maxScale: 4, cpu: 1.26, memoryMb: 512, labels: { team: 'ai' }, imagePullSecrets: [{ name: 'registry' }],
      volumeMounts: [{ name: 'data', mountPath: '/data', readOnly: true }], sidecars: [{ name: 'proxy', image: 'envoy:1', env: [{ name: 'MODE', value: 'fast' }] }],
    },
  },
  sourceRevisionConfig: { imageUri: IMAGE },
  secrets: [{ name: 'API_TOKEN', value: 's3cret' }, { name: 'LOG_LEVEL', value: 'debug' }],
  secretReferences: [{ name: 'SMTP_PASSWORD', secretName: 'mail', secretKey: 'password' }],
});
const restPatch = { source_revision_config: { image_uri: NEXT_IMAGE }, source_config: { custom_url: 'https://v2.acme.example', resource_spec: { cpu: 0.44, max_scale: 2 } }, secrets: [{ name: 'API_TOKEN', value: 'rotated' }] };
const graphqlPatch = { sourceRevisionConfig: { imageUri: NEXT_IMAGE }, sourceConfig: { customUrl: 'https://v2.acme.example', resourceSpec: { cpu: 0.44, maxScale: 2 } }, secrets: [{ name: 'API_TOKEN', value: 'rotated' }] };

/** A deployment and its revisions as REST shows them, with what each write picks itself (ids, times, name) left out. */
async function comparable(id: string) {
  const deployment = (await call('GET', `/v2/deployments/${id}`)).json;
  const revisions = (await call('GET', `/v2/deployments/${id}/revisions`)).json.resources;
  const { id: _id, name: _name, created_at: _c, updated_at: _u, latest_revision_id: latest, ...rest } = deployment;
  expect(latest).toBe(revisions[0].id);
  return { deployment: rest, revisions: revisions.map(({ id: _r, created_at: _rc, updated_at: _ru, ...revision }: Record<string, unknown>) => revision) };
}

describe('one write, either door', () => {
  it('a create, then a PATCH, with identical inputs leave identical deployments and revisions', async () => {
    const viaRest = (await call('POST', '/v2/deployments', { body: restCreate('parity-rest') })).json.id;
    const viaGraphql = (await graphql(CREATE, graphqlCreate('parity-graphql'))).deployment.uuid;
    const created = await comparable(viaRest);
    expect(created.revisions).toHaveLength(1);
    expect(await comparable(viaGraphql)).toEqual(created);

    expect((await call('PATCH', `/v2/deployments/${viaRest}`, { body: restPatch })).status).toBe(200);
    expect((await graphql(UPDATE, { id: viaGraphql, ...graphqlPatch })).__typename).toBe('UpdateDeploymentPayload');
    const patched = await comparable(viaRest);
    expect(patched.revisions).toHaveLength(2);
    expect(patched.deployment).not.toEqual(created.deployment);
    expect(await comparable(viaGraphql)).toEqual(patched);
  });

  it('a PATCH stores the columns it sets as a create stores them', async () => {
    // The create's row is the one the unit of work writes (the next test); the PATCH sets its columns in an UPDATE.
    const { resource_spec: spec, custom_url: url, ...config } = restCreate('').source_config;
    const created = (await call('POST', '/v2/deployments', { body: restCreate('stored-by-create') })).json.id;
    const bare = { ...restCreate('stored-by-patch'), source_config: { ...config, custom_url: 'https://before.acme.example' }, source_revision_config: {} };
    const patched = (await call('POST', '/v2/deployments', { body: bare })).json.id;
    const patch = { source_config: { custom_url: url, resource_spec: spec }, source_revision_config: { image_uri: IMAGE } };
    expect((await call('PATCH', `/v2/deployments/${patched}`, { body: patch })).status).toBe(200);
    const stored = async (id: string) => (await fixture.db.query(
      `select d.source_config::text, d.resource_spec::text, d.source_revision_config::text, r.source_revision_config::text as revision_config
       from deployment d join revision r on r.id = d.latest_revision_id where d.id = $1`, [id]))[0];
    const byCreate = await stored(created);
    expect(byCreate?.resource_spec).toContain('"volume_mounts": [{"name": "data", "readOnly": true, "mountPath": "/data"');
    expect(await stored(patched)).toEqual(byCreate);
  });

  it('a create stores the row the unit of work stores from the same properties', async () => {
    // The create maps its properties as the ORM does and inserts them in a statement of its own: the ORM itself,
    // given the same properties, is the reference.
    const body = restCreate('stored-by-statement');
    const created = (await call('POST', '/v2/deployments', { body })).json.id;
    const request = validateCreateRequest({ ...body, name: 'stored-by-unit-of-work' });
    if (!request.ok) throw new Error('the create body is refused');
    const em = fixture.db.orm.em.fork();
    const reference = em.create(DeploymentSchema, newDeploymentProperties(ACME, randomUUID(), request.value, null, new Date()));
    await em.flush();
    const stored = async (id: string) => {
      const [row] = await fixture.db.query<{ row: { resource_spec: { labels: unknown } } }>(`select to_jsonb(d) - 'id' - 'name' - 'created_at' - 'updated_at' - 'latest_revision_id' as row from deployment d where id = $1`, [id]);
      return row?.row;
    };
    const byStatement = await stored(created);
    expect(byStatement).toEqual(await stored(reference.id));
    expect(byStatement?.resource_spec.labels).toEqual({ team: 'ai' });
  });

  const deep = (levels: number) => JSON.parse(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`);
  const volume = (configMap: unknown) => ({ name: 'data', configMap });
  it.each([
    ['a value out of its range', ['source_config', 'resource_spec', 'cpu'], (rest: any, input: any) => { rest.source_config.resource_spec.cpu = input.sourceConfig.resourceSpec.cpu = 9; }],
    ['a rule broken (a secret name twice)', ['secrets', 1, 'name'], (rest: any, input: any) => { rest.secrets = input.secrets = [{ name: 'A', value: '1' }, { name: 'A', value: '2' }]; }],
    ['a NUL character in a secret\'s name', ['secrets', 0, 'name'], (rest: any, input: any) => { rest.secrets = input.secrets = [{ name: 'A\u0000', value: '1' }]; }],
    ['an unpaired surrogate in a label', ['source_config', 'resource_spec', 'labels', 'team'], (rest: any, input: any) => { rest.source_config.resource_spec.labels = input.sourceConfig.resourceSpec.labels = { team: 'a\ud800' }; }],
    ['a NUL character in a key inside a volume', ['source_config', 'resource_spec', 'volumes', 0, 'configMap', 'items\u0000', '[key]'],
      (rest: any, input: any) => { rest.source_config.resource_spec.volumes = input.sourceConfig.resourceSpec.volumes = [volume({ 'items\u0000': [] })]; }],
    ['a volume nested 4,500 levels deep', ['source_config', 'resource_spec', 'volumes', 0, 'configMap'],
      (rest: any, input: any) => { rest.source_config.resource_spec.volumes = input.sourceConfig.resourceSpec.volumes = [volume(deep(4500))]; }],
  ])('refuses %s with the same problem on both doors (REST 422 item = InvalidInputError problem)', async (_, loc, spoil) => {
    const rest = restCreate('parity-invalid');
    const input = graphqlCreate('parity-invalid');
    spoil(rest, input);
    const answer = await call('POST', '/v2/deployments', { body: rest });
    expect(answer.status).toBe(422);
    expect(answer.json.detail.map((item: { loc: unknown[] }) => item.loc)).toEqual([['body', ...loc]]);
    const refused = await graphql(CREATE, input);
    expect(refused.__typename).toBe('InvalidInputError');
    expect(asRestItems(refused.problems)).toEqual(answer.json.detail);
  });

  it('issues upload URLs on both doors, and refuses another deployment\'s archive with the same problem, changing nothing', async () => {
    const remote = { source: 'internal_source', source_config: {}, source_revision_config: {}, secrets: [] };
    const [target, other] = await Promise.all(['parity-archive', 'parity-archive-other'].map(async (name) => (await call('POST', '/v2/deployments', { body: { name, ...remote } })).json.id));
    const issued = await graphql(UPLOAD, { deploymentId: target });
    expect({ type: issued.__typename, path: issued.objectPath }).toEqual({ type: 'CreateSourceUploadPayload', path: expect.stringContaining(`/${target}/`) });
    const foreign = await uploadArchive(call, other);
    const restBody = { revision_source: 'internal_source', source_revision_config: { source_tarball_path: foreign, graph_config_path: 'graph.json' } };
    const answer = await call('PATCH', `/v2/deployments/${target}`, { body: restBody });
    expect(answer.status).toBe(422);
    const refused = await graphql(UPDATE, { id: target, revisionSource: 'INTERNAL_SOURCE', sourceRevisionConfig: { sourceTarballPath: foreign, graphConfigPath: 'graph.json' } });
    expect(refused.__typename).toBe('InvalidInputError');
    expect(asRestItems(refused.problems)).toEqual(answer.json.detail);
    expect((await call('GET', `/v2/deployments/${target}/revisions`)).json.resources).toEqual([]);
    expect(await graphql(UPLOAD, { deploymentId: '0f0f0f0f-0000-4000-8000-000000000000' })).toEqual({
      __typename: 'DeploymentNotFoundError', message: 'Deployment ID 0f0f0f0f-0000-4000-8000-000000000000 not found.',
    });
  });

  it('refuses a name taken with the same message', async () => {
    const rest = await call('POST', '/v2/deployments', { body: restCreate('parity-rest') });
    const refused = await graphql(CREATE, graphqlCreate('parity-rest'));
    expect(rest.status).toBe(409);
    expect(refused).toEqual({ __typename: 'DeploymentNameTakenError', message: rest.json.detail });
  });
});
