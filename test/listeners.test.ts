// The five listener operations as the original answers them (issue 53, item 1; shared/spec/original-listeners.md),
// the GraphQL door's listeners through the same resolvers, and the rules of a deployment on a listener (item 2;
// docs/decisions.md#listeners): placement checked at the create, immutable afterwards, and a listener in use
// neither deleted nor stripped of the namespaces its deployments run in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME, GLOBEX } from './support/fixtures.ts';
import { dataOf } from './support/graphql-expect.ts';
import { READ_ONLY, TIMESTAMP, UNKNOWN_ID, UUID, restCaller } from './support/write-calls.ts';

type KeyName = 'acmeWriter' | 'globexWriter' | 'acmeReader';
let fixture: FixtureApp<KeyName>;
beforeAll(async () => {
  fixture = await startFixtureApp([], {
    acmeWriter: { tenants: [ACME], mayWrite: true },
    globexWriter: { tenants: [GLOBEX], mayWrite: true },
    acmeReader: { tenants: [ACME] },
  });
});
afterAll(() => fixture?.close());

const call = restCaller(() => fixture.app.url, () => fixture.keys.acmeWriter);
let made = 0;
const newListener = async (namespaces: string[] | null = ['apps', 'batch'], key = fixture.keys.acmeWriter) => {
  const answer = await call('POST', '/v2/listeners', { key, body: { compute_type: 'k8s', compute_id: `cluster-${++made}`, compute_config: { k8s_namespaces: namespaces } } });
  expect(answer.status, answer.text).toBe(201);
  return answer.json as { id: string; compute_id: string };
};
const deploymentOn = (listenerId: string | null, namespace: string | null, source = 'external_docker', key = fixture.keys.acmeWriter) => call('POST', '/v2/deployments', {
  key,
  body: {
    name: `on-listener-${++made}`, source, secrets: [],
    source_config: { listener_id: listenerId, ...(namespace !== null && { listener_config: { k8s_namespace: namespace } }) },
    source_revision_config: { image_uri: 'nginx:1.27' },
  },
});

describe('the listener operations on REST', () => {
  it('creates (201), reads, lists by offset, patches and deletes (204) a listener, with the original\'s record', async () => {
    const created = await call('POST', '/v2/listeners', { body: { compute_type: 'k8s', compute_id: 'prod-eu-1', compute_config: { k8s_namespaces: ['apps'] }, version: '0.9' } });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.json)).toEqual(['version', 'compute_type', 'compute_id', 'compute_config', 'id', 'created_at', 'updated_at']);
    expect(created.json).toEqual({
      version: '0.9', compute_type: 'k8s', compute_id: 'prod-eu-1', compute_config: { k8s_namespaces: ['apps'] },
      id: expect.stringMatching(UUID), created_at: expect.stringMatching(TIMESTAMP), updated_at: expect.stringMatching(TIMESTAMP),
    });
    const { id } = created.json;
    expect((await call('GET', `/v2/listeners/${id}`, { key: fixture.keys.acmeReader })).json).toEqual(created.json);

    const patched = await call('PATCH', `/v2/listeners/${id}`, { body: { version: '1.0', compute_config: { k8s_namespaces: ['apps', 'web'] } } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ version: '1.0', compute_id: 'prod-eu-1', compute_config: { k8s_namespaces: ['apps', 'web'] } });
    // Absent keys are kept; null version clears it.
    expect((await call('PATCH', `/v2/listeners/${id}`, { body: { version: null } })).json).toMatchObject({ version: null, compute_config: { k8s_namespaces: ['apps', 'web'] } });

    const deleted = await call('DELETE', `/v2/listeners/${id}`);
    expect({ status: deleted.status, text: deleted.text }).toEqual({ status: 204, text: '' });
    expect(await call('GET', `/v2/listeners/${id}`)).toMatchObject({ status: 404, json: { detail: `Listener ID ${id} not found.` } });
  });

  it('pages as the deployment list: newest first, offset = request offset + returned, echoed past the end', async () => {
    const ids = [];
    for (let index = 0; index < 3; index++) ids.push((await newListener(null, fixture.keys.globexWriter)).id);
    const first = await call('GET', '/v2/listeners?limit=2', { key: fixture.keys.globexWriter });
    expect(first.json.resources.map((l: { id: string }) => l.id)).toEqual([ids[2], ids[1]]);
    expect(first.json.offset).toBe(2);
    const second = await call('GET', '/v2/listeners?limit=2&offset=2', { key: fixture.keys.globexWriter });
    expect(second.json).toMatchObject({ offset: 3 });
    expect(second.json.resources.map((l: { id: string }) => l.id)).toEqual([ids[0]]);
    expect((await call('GET', '/v2/listeners?offset=50', { key: fixture.keys.globexWriter })).json).toEqual({ resources: [], offset: 50 });
    const invalid = await call('GET', '/v2/listeners?limit=0', { key: fixture.keys.globexWriter });
    expect(invalid.json).toEqual({ detail: [{ type: 'greater_than_equal', loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', input: '0', ctx: { ge: 1 } }] });
  });

  it('answers 409 for a second compute_id in the tenant, but not in another tenant', async () => {
    const body = { compute_type: 'k8s', compute_id: 'shared-name', compute_config: { k8s_namespaces: null } };
    expect((await call('POST', '/v2/listeners', { body })).status).toBe(201);
    expect(await call('POST', '/v2/listeners', { body })).toMatchObject({
      status: 409, json: { detail: `Listener for tenant ID '${ACME}' and compute ID 'shared-name' already exists.` },
    });
    expect((await call('POST', '/v2/listeners', { body, key: fixture.keys.globexWriter })).status).toBe(201);
  });

  it('refuses a compute_type other than k8s with pydantic\'s literal_error, and lists every problem at once', async () => {
    const answer = await call('POST', '/v2/listeners', { body: { compute_type: 'ecs', compute_config: {} } });
    expect(answer.status).toBe(422);
    expect(answer.json).toEqual({
      detail: [
        { type: 'literal_error', loc: ['body', 'compute_type'], msg: 'Input should be \'k8s\'', input: 'ecs', ctx: { expected: '\'k8s\'' } },
        { type: 'missing', loc: ['body', 'compute_id'], msg: 'Field required', input: { compute_type: 'ecs', compute_config: {} } },
      ],
    });
    const path = await call('GET', '/v2/listeners/not-a-uuid');
    expect(path.status).toBe(422);
    expect(path.json.detail[0]).toMatchObject({ type: 'uuid_parsing', loc: ['path', 'listener_id'] });
  });

  it('needs the write permission for changes, and hides another tenant\'s listener as an unknown one', async () => {
    const { id } = await newListener();
    expect(await call('POST', '/v2/listeners', { key: fixture.keys.acmeReader, body: { compute_type: 'k8s', compute_id: 'x', compute_config: {} } })).toMatchObject({ status: 403, json: READ_ONLY });
    expect(await call('DELETE', `/v2/listeners/${id}`, { key: fixture.keys.acmeReader })).toMatchObject({ status: 403, json: READ_ONLY });
    for (const [method, body] of [['GET', undefined], ['PATCH', { version: 'x' }], ['DELETE', undefined]] as const) {
      expect(await call(method, `/v2/listeners/${id}`, { key: fixture.keys.globexWriter, body })).toMatchObject({ status: 404, json: { detail: `Listener ID ${id} not found.` } });
    }
    expect(await call('GET', `/v2/listeners/${UNKNOWN_ID}`)).toMatchObject({ status: 404 });
    expect((await call('GET', `/v2/listeners/${id}`)).status).toBe(200);
  });

  it('is in the OpenAPI document', async () => {
    const document = (await call('GET', '/openapi.json')).json;
    expect(Object.keys(document.paths['/v2/listeners'])).toEqual(['get', 'post']);
    expect(Object.keys(document.paths['/v2/listeners/{listener_id}'])).toEqual(['get', 'patch', 'delete']);
    expect(document.components.schemas.ListenerCreateRequest.properties.compute_type).toMatchObject({ enum: ['k8s'] });
  });
});

describe('the listeners on GraphQL, through the same resolvers', () => {
  const graphql = (query: string, variables?: Record<string, unknown>, key = fixture.keys.acmeWriter) => fixture.app.graphql(query, { 'x-api-key': key }, variables);

  it('creates, lists as a connection, reads as a node and as Deployment.listener, updates and deletes, with typed errors', async () => {
    const created = dataOf(await graphql(`mutation { createListener(input: { computeType: K8S, computeId: "gql-1", computeConfig: { k8sNamespaces: ["apps"] } }) {
      __typename ... on CreateListenerPayload { listener { id uuid computeId computeConfig { k8sNamespaces } online lastContactAt } } } }`));
    const listener = created.createListener.listener;
    expect(listener).toMatchObject({ computeId: 'gql-1', computeConfig: { k8sNamespaces: ['apps'] }, online: false, lastContactAt: null });
    const taken = dataOf(await graphql(`mutation { createListener(input: { computeType: K8S, computeId: "gql-1", computeConfig: {} }) { __typename ... on ListenerComputeIdTakenError { computeId message } } }`));
    expect(taken.createListener).toMatchObject({ __typename: 'ListenerComputeIdTakenError', computeId: 'gql-1' });

    const node = dataOf(await graphql('query ($id: ID!) { node(id: $id) { ... on Listener { uuid } } }', { id: listener.id }));
    expect(node.node).toEqual({ uuid: listener.uuid });
    const page = dataOf(await graphql('{ listeners(first: 100) { edges { node { uuid } } pageInfo { hasNextPage } } }'));
    expect(page.listeners.edges.map((edge: { node: { uuid: string } }) => edge.node.uuid)).toContain(listener.uuid);

    const deployment = await deploymentOn(listener.uuid, 'apps');
    expect(deployment.status, deployment.text).toBe(201);
    const onDeployment = dataOf(await graphql('query ($id: ID!) { deployment(id: $id) { listener { uuid computeId } } }', { id: deployment.json.id }));
    expect(onDeployment.deployment.listener).toEqual({ uuid: listener.uuid, computeId: 'gql-1' });

    const inUse = dataOf(await graphql('mutation ($id: ID!) { deleteListener(input: { id: $id }) { __typename ... on ListenerInUseError { deploymentCount } } }', { id: listener.id }));
    expect(inUse.deleteListener).toEqual({ __typename: 'ListenerInUseError', deploymentCount: 1 });
    const shrunk = dataOf(await graphql('mutation ($id: ID!) { updateListener(input: { id: $id, computeConfig: { k8sNamespaces: [] } }) { __typename ... on ListenerNamespacesInUseError { namespaces } } }', { id: listener.id }));
    expect(shrunk.updateListener).toEqual({ __typename: 'ListenerNamespacesInUseError', namespaces: ['apps'] });
    const updated = dataOf(await graphql('mutation ($id: ID!) { updateListener(input: { id: $id, version: "2.0" }) { __typename ... on UpdateListenerPayload { listener { version } } } }', { id: listener.id }));
    expect(updated.updateListener).toEqual({ __typename: 'UpdateListenerPayload', listener: { version: '2.0' } });
    const missing = dataOf(await graphql(`mutation { deleteListener(input: { id: "${UNKNOWN_ID}" }) { __typename ... on ListenerNotFoundError { id } } }`));
    expect(missing.deleteListener).toEqual({ __typename: 'ListenerNotFoundError', id: UNKNOWN_ID });
  });
});

describe('deployments on listeners', () => {
  it('accepts a listener of the tenant with one of its namespaces, and refuses the rest naming the field', async () => {
    const { id } = await newListener(['apps', 'batch']);
    const globex = await newListener(['apps'], fixture.keys.globexWriter);
    expect((await deploymentOn(id, 'batch')).status).toBe(201);

    const field = async (answer: Promise<{ status: number; json: any }>) => {
      const { status, json } = await answer;
      return { status, locs: json.detail.map((item: { loc: unknown[] }) => item.loc) };
    };
    const NAMESPACE = ['body', 'source_config', 'listener_config', 'k8s_namespace'];
    expect(await field(deploymentOn(id, 'web'))).toEqual({ status: 422, locs: [NAMESPACE] });
    expect(await field(deploymentOn(id, null))).toEqual({ status: 422, locs: [NAMESPACE] });
    expect(await field(deploymentOn(null, 'apps'))).toEqual({ status: 422, locs: [NAMESPACE] });
    // Another tenant's listener is refused as an unknown one is.
    expect(await field(deploymentOn(globex.id, 'apps'))).toEqual({ status: 422, locs: [['body', 'source_config', 'listener_id']] });
    expect(await field(deploymentOn(UNKNOWN_ID, 'apps'))).toEqual({ status: 422, locs: [['body', 'source_config', 'listener_id']] });
    // Only external_docker deployments run on listeners (the original's field description).
    const github = await field(deploymentOn(id, 'apps', 'github'));
    expect(github.status).toBe(422);
    expect(github.locs).toContainEqual(['body', 'source_config', 'listener_id']);
  });

  it('keeps listener_id and k8s_namespace immutable (422 naming the field)', async () => {
    const { id } = await newListener(['apps', 'batch']);
    const other = await newListener(['apps']);
    const deployment = (await deploymentOn(id, 'apps')).json;
    const patch = (source_config: unknown) => call('PATCH', `/v2/deployments/${deployment.id}`, { body: { source_config } });
    const listenerChange = await patch({ listener_id: other.id });
    expect(listenerChange.status).toBe(422);
    expect(listenerChange.json.detail[0]).toMatchObject({ loc: ['body', 'source_config', 'listener_id'], msg: 'Value error, listener_id cannot be changed' });
    const namespaceChange = await patch({ listener_config: { k8s_namespace: 'batch' } });
    expect(namespaceChange.status).toBe(422);
    expect(namespaceChange.json.detail[0]).toMatchObject({ loc: ['body', 'source_config', 'listener_config', 'k8s_namespace'] });
    expect((await patch({ listener_id: id, listener_config: { k8s_namespace: 'apps' } })).status).toBe(200);
  });

  it('refuses to delete a listener deployments name, or to drop a namespace they run in (409), until they are gone', async () => {
    const { id } = await newListener(['apps', 'batch', 'web']);
    const deployment = (await deploymentOn(id, 'batch')).json;
    expect(await call('DELETE', `/v2/listeners/${id}`)).toMatchObject({ status: 409, json: { detail: `Listener ID ${id} is named by 1 deployment; delete it first.` } });
    expect(await call('PATCH', `/v2/listeners/${id}`, { body: { compute_config: { k8s_namespaces: ['apps'] } } })).toMatchObject({
      status: 409, json: { detail: `Listener ID ${id}: deployments run in 'batch', so k8s_namespaces must keep it.` },
    });
    expect(await call('PATCH', `/v2/listeners/${id}`, { body: { compute_config: { k8s_namespaces: ['batch'] } } })).toMatchObject({ status: 200, json: { compute_config: { k8s_namespaces: ['batch'] } } });
    expect((await call('DELETE', `/v2/deployments/${deployment.id}`)).status).toBe(204);
    expect((await call('DELETE', `/v2/listeners/${id}`)).status).toBe(204);
  });
});
