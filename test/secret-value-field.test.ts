// The read-secrets check of `Secret.value` (secret.graphql.ts), on its own. A key without the scope gets no
// revealer (secret-revealer.ts; test/secret-values-cache.test.ts shows it decrypts nothing), and the statement
// listing a deployment's secrets then reads no ciphertext: the field is handed nothing to decrypt, and its own
// check never decides alone. The check is there for a row that reaches such a caller with its ciphertext (a
// secret read some other way than that statement); its fallback would decrypt that row. This file has the
// listing read ciphertexts for every caller, so that only the field's check stands between a row and the
// answer, on every read and write of both doors.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as SecretListing from '../src/modules/deployments/secret-listing.ts';
import { MASKED_SECRET } from '../src/rest/deployments.route.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME, ACME_DEPLOYMENT } from './support/fixtures.ts';

vi.mock('../src/modules/deployments/secret-listing.ts', async (importOriginal) => {
  const listing = await importOriginal<typeof SecretListing>();
  return {
    ...listing,
    secretsAndReferencesOf: ((em, ids) => listing.secretsAndReferencesOf(em, ids, true)) satisfies typeof listing.secretsAndReferencesOf,
  };
});

/** The fixture's values of ACME_DEPLOYMENT's secrets. */
const VALUES = ['sk_live_fixture_Zq8', 'correct horse battery staple'];

let fixture: FixtureApp<'reader' | 'masked' | 'maskedWriter'>;
beforeAll(async () => {
  fixture = await startFixtureApp([], {
    reader: { tenants: [ACME], mayReadSecrets: true },
    masked: { tenants: [ACME] },
    maskedWriter: { tenants: [ACME], mayWrite: true },
  });
});
afterAll(() => fixture?.close());

type Secrets = { name: string; value: string | null }[];
const values = (secrets: Secrets) => secrets.map((secret) => secret.value);

async function graphql(key: string, query: string, variables?: Record<string, unknown>) {
  const { status, body } = await fixture.app.graphql(query, { 'x-api-key': key }, variables);
  expect({ status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
  return body.data;
}

async function rest(key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${fixture.app.url}${path}`, {
    method, headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return response.json();
}

const PAGE = '{ deployments(limit: 100) { resources { uuid secrets { name value } } } }';
const ONE = 'query($id: ID!) { deployment(id: $id) { id secrets { name value } } }';

describe('a secret row that carries its ciphertext', () => {
  it('shows its value to a key with the read-secrets scope (the rows do carry it)', async () => {
    const page = await graphql(fixture.keys.reader, PAGE);
    expect(values(page.deployments.resources.find((d: { uuid: string }) => d.uuid === ACME_DEPLOYMENT).secrets)).toEqual(VALUES);
  });

  it('shows no value to a key without the scope: every read and write, on both doors', async () => {
    const { masked, maskedWriter } = fixture.keys;
    const globalId = (await graphql(masked, ONE, { id: ACME_DEPLOYMENT })).deployment.id as string;
    const answers: [string, unknown, Secrets][] = [];
    const graphqlRead = async (name: string, key: string, query: string, variables: Record<string, unknown> | undefined, secretsOf: (data: any) => Secrets) => {
      const data = await graphql(key, query, variables);
      answers.push([name, data, secretsOf(data)]);
    };
    await graphqlRead('GraphQL page', masked, PAGE, undefined, (data) => data.deployments.resources.find((d: { uuid: string }) => d.uuid === ACME_DEPLOYMENT).secrets);
    await graphqlRead('GraphQL deployment', masked, ONE, { id: ACME_DEPLOYMENT }, (data) => data.deployment.secrets);
    await graphqlRead('GraphQL node', masked, 'query($id: ID!) { node(id: $id) { ... on Deployment { secrets { name value } } } }', { id: globalId }, (data) => data.node.secrets);
    await graphqlRead('GraphQL write', maskedWriter, `mutation($input: UpdateDeploymentInput!) { updateDeployment(input: $input) {
      __typename ... on UpdateDeploymentPayload { deployment { secrets { name value } } } ... on MutationError { message } } }`,
    { input: { id: ACME_DEPLOYMENT, secretReferences: [] } }, (data) => { expect(data.updateDeployment).toMatchObject({ __typename: 'UpdateDeploymentPayload' }); return data.updateDeployment.deployment.secrets; });
    const restPage = await rest(masked, 'GET', '/v2/deployments?limit=100');
    answers.push(['REST page', restPage, restPage.resources.find((d: { id: string }) => d.id === ACME_DEPLOYMENT).secrets]);
    const restOne = await rest(masked, 'GET', `/v2/deployments/${ACME_DEPLOYMENT}`);
    answers.push(['REST deployment', restOne, restOne.secrets]);
    const restWrite = await rest(maskedWriter, 'PATCH', `/v2/deployments/${ACME_DEPLOYMENT}`, { secret_references: [] });
    answers.push(['REST write', restWrite, restWrite.secrets]);

    for (const [name, answer, secrets] of answers) {
      expect.soft(values(secrets), name).toEqual(VALUES.map(() => (name.startsWith('REST') ? MASKED_SECRET : null)));
      for (const value of VALUES) expect.soft(JSON.stringify(answer), name).not.toContain(value);
    }
  });
});
