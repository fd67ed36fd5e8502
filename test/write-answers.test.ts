// A write's answer is made from what the write sent, not read back (src/modules/deployments/writes/
// deployment-writer.ts, WrittenDeployment): here each answer is held to a read of the same deployment right
// after it, byte for byte with its ETag, on both doors, for a caller who sees secret values and one who does not.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME, ACME_INTEGRATION } from './support/fixtures.ts';
import { restCaller } from './support/write-calls.ts';

let fixture: FixtureApp<'revealing' | 'masked'>;
beforeAll(async () => {
  fixture = await startFixtureApp([], {
    revealing: { tenants: [ACME], mayWrite: true, mayReadSecrets: true },
    masked: { tenants: [ACME], mayWrite: true, mayReadSecrets: false },
  });
});
afterAll(() => fixture?.close());

const call = restCaller(() => fixture.app.url, () => fixture.keys.revealing);
const name = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

const richCreate = (deploymentName: string) => ({
  name: deploymentName, source: 'external_docker',
  source_config: {
    custom_url: 'https://agent.acme.example', deployment_type: 'prod',
    resource_spec: {
      min_scale: 1, max_scale: 4, cpu: 1.26, memory_mb: 512, labels: { team: 'ai' }, image_pull_secrets: [{ name: 'registry' }],
      volume_mounts: [{ name: 'data', mountPath: '/data', readOnly: true }], sidecars: [{ name: 'proxy', image: 'envoy:1', env: [{ name: 'MODE', value: 'fast' }] }],
    },
  },
  source_revision_config: { image_uri: 'registry.example.com/acme/agent:1' },
  secrets: [{ name: 'API_TOKEN', value: 's3cret' }, { name: 'EMPTY', value: '' }, { name: 'UNICODE', value: 'naïve ☃ "quoted"' }],
  secret_references: [{ name: 'SMTP_PASSWORD', secret_name: 'mail', secret_key: 'password' }],
});

/** The bodies each write sends; each PATCH goes to a deployment made by richCreate just before. */
const CREATES: Record<string, (deploymentName: string) => unknown> = {
  'a rich external_docker create': richCreate,
  'a create with nothing to build (the CLI\'s internal_docker body)': (deploymentName) => ({
    name: deploymentName, source: 'internal_docker', source_config: { deployment_type: 'dev' }, source_revision_config: {}, secrets: [],
  }),
  'a github create': (deploymentName) => ({
    name: deploymentName, source: 'github',
    source_config: { integration_id: ACME_INTEGRATION.toUpperCase(), repo_url: 'https://github.com/acme/agent', deployment_type: 'dev_free', build_on_push: true },
    source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' }, secrets: [{ name: 'ONE', value: '1' }],
  }),
};
const PATCHES: Record<string, unknown> = {
  'a PATCH that makes a revision, as the CLI sends it': { source_revision_config: { image_uri: 'registry.example.com/acme/agent:2' }, secrets: [{ name: 'API_TOKEN', value: 'rotated' }] },
  'a PATCH of the image alone (its lists kept)': { source_revision_config: { image_uri: 'registry.example.com/acme/agent:3' } },
  'a PATCH of settings and the resource spec': { source_config: { custom_url: 'https://v2.acme.example', build_command: 'make', resource_spec: { cpu: 0.44, max_scale: 2 } } },
  'a PATCH of the references alone': { secret_references: [{ name: 'DB', secret_name: 'db', secret_key: 'url' }, { name: 'DB2', secret_name: 'db', secret_key: 'url2' }] },
  'a PATCH that changes nothing': {},
};

for (const keyName of ['revealing', 'masked'] as const) {
  const as = { key: undefined as string | undefined };
  describe(`REST, by a key that ${keyName === 'revealing' ? 'sees' : 'does not see'} secret values: the answer is what a GET then answers`, () => {
    beforeAll(() => {
      as.key = fixture.keys[keyName];
    });
    const expectAnswerToBeRead = async (answer: { status: number; text: string; headers: Headers }, id: string) => {
      const read = await call('GET', `/v2/deployments/${id}`, { key: as.key });
      expect(answer.text).toBe(read.text);
      expect(answer.headers.get('etag')).toBe(read.headers.get('etag'));
    };

    for (const [title, body] of Object.entries(CREATES)) {
      it(title, async () => {
        const answer = await call('POST', '/v2/deployments', { key: as.key, body: body(name('answer')), headers: { 'idempotency-key': randomUUID() } });
        expect(answer.status, answer.text).toBe(201);
        await expectAnswerToBeRead(answer, answer.json.id);
      });
    }
    for (const [title, body] of Object.entries(PATCHES)) {
      it(title, async () => {
        const { json } = await call('POST', '/v2/deployments', { key: as.key, body: richCreate(name('patched')) });
        const answer = await call('PATCH', `/v2/deployments/${json.id}`, { key: as.key, body });
        expect(answer.status, answer.text).toBe(200);
        await expectAnswerToBeRead(answer, json.id);
      });
    }
    it('a redeploy', async () => {
      const { json } = await call('POST', '/v2/deployments', { key: as.key, body: richCreate(name('redeployed')) });
      const answer = await call('POST', `/v2/deployments/${json.id}/revisions/${json.latest_revision_id}/redeploy`, { key: as.key });
      expect(answer.status, answer.text).toBe(200);
      await expectAnswerToBeRead(answer, json.id);
    });
  });
}

describe('GraphQL: a mutation\'s deployment is what a query of it then answers', () => {
  const selection = `{ id uuid name status source etag createdAt updatedAt imageVersion remoteReconciled latestRevisionId activeRevisionId
    sourceConfig { customUrl deploymentType resourceSpec { cpu maxScale } } sourceRevisionConfig { imageUri repoRef }
    secrets { name value } secretReferences { name secretName secretKey } latestRevision { uuid status } revisions { uuid status } }`;
  // Under a key, the mutation's reads (its revisions) run in its transaction, before its writes have gone with the COMMIT.
  const graphql = async (query: string, variables: Record<string, unknown>) => {
    const headers = { 'x-api-key': fixture.keys.revealing, ...(query.startsWith('mutation') && { 'idempotency-key': randomUUID() }) };
    const { status, body } = await fixture.app.graphql(query, headers, variables);
    expect({ status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
    return body.data;
  };
  const read = async (id: string) => (await graphql(`query($id: ID!) { deployment(id: $id) ${selection} }`, { id })).deployment;

  it('of a create, then an update', async () => {
    const { json } = await call('POST', '/v2/deployments', { body: richCreate(name('graphql')) });
    const created = (await graphql(`mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { ... on CreateDeploymentPayload { deployment ${selection} } } }`, {
      input: { name: name('graphql'), source: 'EXTERNAL_DOCKER', sourceConfig: { deploymentType: 'DEV' }, sourceRevisionConfig: { imageUri: 'x:1' }, secrets: [{ name: 'A', value: 'b' }] },
    })).createDeployment.deployment;
    expect(created).toEqual(await read(created.uuid));
    const updated = (await graphql(`mutation($input: UpdateDeploymentInput!) { updateDeployment(input: $input) { ... on UpdateDeploymentPayload { deployment ${selection} } } }`, {
      input: { id: json.id, sourceRevisionConfig: { imageUri: 'x:2' } },
    })).updateDeployment.deployment;
    expect(updated).toEqual(await read(json.id));
    expect(updated.revisions).toHaveLength(2);
  });

  it('of two updates of one deployment in one request: each answers the deployment as it left it', async () => {
    const { json } = await call('POST', '/v2/deployments', { body: richCreate(name('twice')) });
    const data = await graphql(`mutation($first: UpdateDeploymentInput!, $second: UpdateDeploymentInput!) {
      first: updateDeployment(input: $first) { ... on UpdateDeploymentPayload { deployment ${selection} } }
      second: updateDeployment(input: $second) { ... on UpdateDeploymentPayload { deployment ${selection} } } }`, {
      first: { id: json.id, secrets: [{ name: 'ONLY', value: 'one' }], secretReferences: [] },
      second: { id: json.id, sourceRevisionConfig: { imageUri: 'x:3' } },
    });
    expect(data.first.deployment.secrets).toEqual([{ name: 'ONLY', value: 'one' }]);
    expect(data.second.deployment).toEqual(await read(json.id));
    expect(data.second.deployment.secrets).toEqual([{ name: 'ONLY', value: 'one' }]);
  });
});
