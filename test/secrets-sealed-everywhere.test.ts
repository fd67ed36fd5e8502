// Secret values exist at rest only sealed, whatever was written and how (issue 50): known values go through
// every write route and mutation of both doors, with and without Idempotency-Key, refused or not, revealed to
// the writer or masked; then a full dump of the database and the service's whole log (at `trace`) are searched
// for them, in every form they could take. The service runs as a user runs it: its own process, its stdout.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import { ACME, importFixture, issueKey } from './support/fixtures.ts';
import { startService, type ServiceProcess } from './support/service-process.ts';
import { everythingStored, formsOf } from './support/stored-text.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import { restCaller, type Answer } from './support/write-calls.ts';

const secretsKey = randomBytes(32);
let db: TestDatabase;
let service: ServiceProcess;
const keys = { revealing: '', masked: '' };

beforeAll(async () => {
  db = await createTestDatabase();
  await importFixture(db.orm.em.fork(), new SecretCipher(secretsKey));
  keys.revealing = await issueKey(db.orm.em, [ACME], true, true);
  keys.masked = await issueKey(db.orm.em, [ACME], false, true);
  service = await startService({ DATABASE_URL: db.url, SECRETS_KEY: secretsKey.toString('base64'), LOG_LEVEL: 'trace' });
}, 90_000);
afterAll(async () => {
  await service?.stop();
  await db?.drop();
});

/** Every value written below: each one distinct, so that a find names the write that leaked it. */
const values: string[] = [];
const secretValue = (what: string) => {
  const value = `sealed-${what}-${randomBytes(6).toString('hex')}`;
  values.push(value);
  return value;
};

const call = restCaller(() => new URL(service.url).origin, () => keys.revealing);
const ok = (answer: Answer, status: number) => {
  expect(answer.status, answer.text).toBe(status);
  return answer;
};
const create = (name: string, secret: string) => ({
  name, source: 'external_docker', source_config: { deployment_type: 'dev' }, source_revision_config: { image_uri: 'nginx:1.27' },
  secrets: [{ name: 'TOKEN', value: secret }],
});
const withKey = (key = randomUUID()) => ({ 'idempotency-key': key });

async function graphql(query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${service.url}`, {
    method: 'POST', headers: { 'x-api-key': keys.revealing, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }),
  });
  const body = await response.json() as { data?: Record<string, any>; errors?: unknown[] };
  expect(body.errors, JSON.stringify(body)).toBeUndefined();
  return Object.values(body.data!)[0];
}

it('writes known values through every write route and mutation', { timeout: 60_000 }, async () => {
  // REST creates: without a key, under a key (revealing and masked), and a refused one (409) under a key.
  const plain = ok(await call('POST', '/v2/deployments', { body: create('sealed-plain', secretValue('rest-create')) }), 201);
  expect(plain.text).toContain(values.at(-1)); // the revealing key is shown its value: the needle went through
  const keyed = ok(await call('POST', '/v2/deployments', { body: create('sealed-keyed', secretValue('rest-create-keyed')), headers: withKey() }), 201);
  ok(await call('POST', '/v2/deployments', { key: keys.masked, body: create('sealed-masked', secretValue('rest-create-masked')), headers: withKey() }), 201);
  ok(await call('POST', '/v2/deployments', { body: create('sealed-keyed', secretValue('rest-create-taken')), headers: withKey() }), 409);

  // REST PATCHes: without and under a key, masked, refused for its If-Match (412), and invalid (422).
  const id = keyed.json.id as string;
  const patch = (secret: string, options: { key?: string; headers?: Record<string, string> } = {}) =>
    call('PATCH', `/v2/deployments/${id}`, { ...options, body: { secrets: [{ name: 'TOKEN', value: secret }] } });
  ok(await patch(secretValue('rest-patch')), 200);
  const patched = ok(await patch(secretValue('rest-patch-keyed'), { headers: withKey() }), 200);
  ok(await patch(secretValue('rest-patch-masked'), { key: keys.masked, headers: withKey() }), 200);
  ok(await patch(secretValue('rest-patch-stale'), { headers: { ...withKey(), 'if-match': '"1"' } }), 412);
  ok(await call('PATCH', `/v2/deployments/${id}`, {
    body: { source_config: { resource_spec: { cpu: 100 } }, secrets: [{ name: 'TOKEN', value: secretValue('rest-patch-invalid') }] }, headers: withKey(),
  }), 422);

  // The other REST writes: a redeploy, a delete, a bulk delete.
  ok(await call('POST', `/v2/deployments/${id}/revisions/${patched.json.latest_revision_id}/redeploy`), 200);
  ok(await call('DELETE', `/v2/deployments/${plain.json.id}`), 204);

  // GraphQL: a create by variables and by inline literal, an update, a redeploy, the deletes.
  const payload = '__typename ... on MutationError { message } ... on CreateDeploymentPayload { deployment { uuid latestRevisionId secrets { value } } }';
  const byVariables = await graphql(`mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { ${payload} } }`, {
    input: { name: 'sealed-graphql', source: 'EXTERNAL_DOCKER', sourceConfig: { deploymentType: 'DEV' }, sourceRevisionConfig: { imageUri: 'nginx:1.27' }, secrets: [{ name: 'TOKEN', value: secretValue('graphql-create') }] },
  });
  const inline = await graphql(`mutation { createDeployment(input: { name: "sealed-inline", source: EXTERNAL_DOCKER, sourceConfig: { deploymentType: DEV },
    sourceRevisionConfig: { imageUri: "nginx:1.27" }, secrets: [{ name: "TOKEN", value: "${secretValue('graphql-create-inline')}" }] }) { ${payload} } }`);
  const updated = await graphql(`mutation($input: UpdateDeploymentInput!) { updateDeployment(input: $input) {
    __typename ... on UpdateDeploymentPayload { deployment { uuid latestRevisionId secrets { value } } } } }`, {
    input: { id: byVariables.deployment.uuid, secrets: [{ name: 'TOKEN', value: secretValue('graphql-update') }] },
  });
  expect(updated.deployment.secrets).toEqual([{ value: values.at(-1) }]);
  await graphql(`mutation($input: RedeployRevisionInput!) { redeployRevision(input: $input) { __typename } }`, {
    input: { deploymentId: updated.deployment.uuid, revisionId: updated.deployment.latestRevisionId },
  });
  await graphql('mutation($input: DeleteDeploymentInput!) { deleteDeployment(input: $input) { __typename } }', { input: { id: inline.deployment.uuid } });
  const bulk = await graphql('mutation($input: DeleteDeploymentsInput!) { deleteDeployments(input: $input) { deletedIds } }', { input: { ids: [byVariables.deployment.uuid] } });
  expect(bulk.deletedIds).toEqual([byVariables.deployment.uuid]);

  // A mutation sent by GET is refused (405), with its value in the variables and inline in the document.
  for (const [query, variables] of [
    ['mutation($input: UpdateDeploymentInput!) { updateDeployment(input: $input) { __typename } }', { input: { id, secrets: [{ name: 'TOKEN', value: secretValue('graphql-get-variables') }] } }],
    [`mutation { updateDeployment(input: { id: "${id}", secrets: [{ name: "TOKEN", value: "${secretValue('graphql-get-inline')}" }] }) { __typename } }`, {}],
  ] as const) {
    const url = `${service.url}?${new URLSearchParams({ query, variables: JSON.stringify(variables) })}`;
    expect((await fetch(url, { headers: { 'x-api-key': keys.revealing } })).status).toBe(405);
  }

  // The retries under the same keys were answered from the stored answers (and those are what is searched).
  expect(Number((await db.query<{ n: number }>('select count(*)::int as n from idempotency_record where answer_sealed is not null'))[0]!.n)).toBe(6);
});

it('stores none of them anywhere but sealed: a full dump of the database holds no value, in any form', async () => {
  const { text } = await everythingStored(db.query);
  // The dump sees the data (names, deployments, the sealed answers), so not finding the values means something.
  for (const seen of ['sealed-keyed', 'sealed-masked', 'TOKEN']) expect(text).toContain(seen);
  expect(values).toHaveLength(14);
  for (const value of values) {
    for (const form of formsOf(value)) expect(text, `${value} stored as ${form}`).not.toContain(form);
  }
});

it('logs none of them, at the most verbose level', async () => {
  // Every request was logged (its access line), so the log is there to search.
  await service.waitFor(/"status":405[^\n]*"msg":"request"[\s\S]*"status":405[^\n]*"msg":"request"/);
  const log = service.output();
  for (const value of values) {
    for (const form of formsOf(value)) expect(log, `${value} logged as ${form}`).not.toContain(form);
    expect(log).not.toContain(encodeURIComponent(value));
  }
});
