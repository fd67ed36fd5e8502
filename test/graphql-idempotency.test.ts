// Issue 52's "Idempotency on both doors": a GraphQL mutation sent with an Idempotency-Key gets the promise REST
// writes get (first answer replayed byte for byte, another request under the key refused, one in progress
// 409), and a request under a key is all or nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/modules/tenancy/api-key-secret.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME, GLOBEX } from './support/fixtures.ts';
import { holdLock } from './support/parked-writes.ts';

let fixture: FixtureApp<'writer' | 'reader' | 'dataPlane'>;

beforeAll(async () => {
  fixture = await startFixtureApp([], {
    writer: { tenants: [ACME], mayReadSecrets: true, mayWrite: true },
    reader: { tenants: [ACME] },
    dataPlane: { tenants: [ACME, GLOBEX], mayReconcile: true },
  });
});
afterAll(() => fixture?.close());

const CREATE = `mutation Create($input: CreateDeploymentInput!) {
  createDeployment(input: $input) {
    __typename
    ... on CreateDeploymentPayload { deployment { uuid name etag secrets { name value } } }
    ... on MutationError { message }
  }
}`;

const input = (name: string) => ({ name, source: 'EXTERNAL_DOCKER', sourceRevisionConfig: { imageUri: `registry.example.com/${name}:1` }, secrets: [{ name: 'TOKEN', value: `v-${name}` }] });

async function graphql(body: unknown, key: string | undefined, headers: Record<string, string> = {}) {
  const response = await fetch(`${fixture.app.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': fixture.keys.writer, ...(key === undefined ? {} : { 'idempotency-key': key }), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const deploymentsNamed = async (name: string) =>
  (await fixture.db.query<{ n: number }>('select count(*)::int as n from deployment where tenant_id = $1 and name = $2', [ACME, name]))[0]!.n;

describe('a mutation under an Idempotency-Key', () => {
  it('runs once: a retry gets the first answer, byte for byte, marked as a replay', async () => {
    const name = `gql-once-${randomUUID().slice(0, 8)}`;
    const key = randomUUID();
    const body = JSON.stringify({ query: CREATE, variables: { input: input(name) } });
    const first = await graphql(body, key);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.text).data.createDeployment).toMatchObject({ __typename: 'CreateDeploymentPayload', deployment: { name, secrets: [{ name: 'TOKEN', value: `v-${name}` }] } });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await graphql(body, key);
    expect({ status: again.status, text: again.text, type: again.headers.get('content-type'), replayed: again.headers.get('idempotent-replayed') })
      .toEqual({ status: 200, text: first.text, type: first.headers.get('content-type'), replayed: 'true' });
    expect(await deploymentsNamed(name)).toBe(1);
  });

  it('keeps a typed refusal too: a retry is answered the refusal, even once the name is free', async () => {
    const name = `gql-taken-${randomUUID().slice(0, 8)}`;
    const made = JSON.parse((await graphql({ query: CREATE, variables: { input: input(name) } }, undefined)).text).data.createDeployment.deployment.uuid;
    const key = randomUUID();
    const body = JSON.stringify({ query: CREATE, variables: { input: input(name) } });
    const refused = await graphql(body, key);
    expect(JSON.parse(refused.text).data.createDeployment.__typename).toBe('DeploymentNameTakenError');
    await graphql({ query: 'mutation Delete($id: ID!) { deleteDeployment(input: { id: $id }) { __typename } }', variables: { id: made } }, undefined);
    expect(await deploymentsNamed(name)).toBe(0);
    const again = await graphql(body, key);
    expect({ text: again.text, replayed: again.headers.get('idempotent-replayed') }).toEqual({ text: refused.text, replayed: 'true' });
  });

  it('refuses another request under a used key with 422, and one under a key in use with 409', async () => {
    const key = randomUUID();
    const name = `gql-used-${randomUUID().slice(0, 8)}`;
    await graphql({ query: CREATE, variables: { input: input(name) } }, key);
    const other = await graphql({ query: CREATE, variables: { input: input(`${name}-2`) } }, key);
    expect({ status: other.status, code: JSON.parse(other.text).errors[0].extensions.code }).toEqual({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await deploymentsNamed(`${name}-2`)).toBe(0);

    const busy = randomUUID();
    const [{ id }] = await fixture.db.query<{ id: string }>('select id from api_key where key_hash = $1', [hashApiKey(fixture.keys.writer)]) as [{ id: string }];
    const holder = await holdLock(fixture.db, 'select pg_advisory_xact_lock(hashtextextended($1, 0))', [`idempotency-key/${ACME}/${id}/${busy}`]);
    try {
      const running = await graphql({ query: CREATE, variables: { input: input(`${name}-3`) } }, busy);
      expect({ status: running.status, code: JSON.parse(running.text).errors[0].extensions.code }).toEqual({ status: 409, code: 'IDEMPOTENCY_KEY_IN_USE' });
    } finally {
      await holder.release();
    }
    expect(await deploymentsNamed(`${name}-3`)).toBe(0);
  });

  it('is all or nothing: an error in one field undoes the fields that ran, says so, and a retry runs again', async () => {
    const name = `gql-all-${randomUUID().slice(0, 8)}`;
    const key = randomUUID();
    const tooMany = Array.from({ length: 101 }, () => randomUUID());
    const body = JSON.stringify({
      query: `mutation Both($input: CreateDeploymentInput!, $ids: [ID!]!) {
        made: createDeployment(input: $input) { __typename }
        gone: deleteDeployments(input: { ids: $ids }) { deletedIds }
      }`,
      variables: { input: input(name), ids: tooMany },
    });
    const failed = await graphql(body, key);
    const answer = JSON.parse(failed.text);
    expect(answer.data).toBeNull();
    expect(answer.errors[0].message).toMatch(/at most 100 ids/);
    expect(await deploymentsNamed(name)).toBe(0);
    // Not kept: the retry runs (and fails the same way), it is not a replay.
    const retried = await graphql(body, key);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await deploymentsNamed(name)).toBe(0);
  });

  it('refuses a header that is no key, and a key with a data plane acting for several tenants', async () => {
    const bad = await graphql({ query: CREATE, variables: { input: input('gql-bad-key') } }, 'a b');
    expect({ status: bad.status, code: JSON.parse(bad.text).errors[0].extensions.code }).toEqual({ status: 400, code: 'IDEMPOTENCY_KEY_INVALID' });
    const plane = await graphql({ query: 'mutation { claimRevisions(input: {}) { __typename } }' }, randomUUID(), { 'x-api-key': fixture.keys.dataPlane });
    expect({ status: plane.status, code: JSON.parse(plane.text).errors[0].extensions.code }).toEqual({ status: 400, code: 'IDEMPOTENCY_KEY_INVALID' });
  });

  it('refuses a mutation under a key sent in a shape whose answer cannot be kept (an event stream), and runs nothing', async () => {
    const name = `gql-stream-${randomUUID().slice(0, 8)}`;
    const streamed = await graphql({ query: CREATE, variables: { input: input(name) } }, randomUUID(), { accept: 'text/event-stream' });
    expect(streamed.text).toContain('IDEMPOTENCY_KEY_UNSUPPORTED');
    expect(await deploymentsNamed(name)).toBe(0);
  });

  it('leaves queries alone: a query under a key is answered as without one', async () => {
    const query = JSON.stringify({ query: '{ tenant { name } }' });
    const keyed = await graphql(query, randomUUID(), { 'x-api-key': fixture.keys.reader });
    const plain = await graphql(query, undefined, { 'x-api-key': fixture.keys.reader });
    expect({ status: keyed.status, text: keyed.text }).toEqual({ status: plain.status, text: plain.text });
  });
});
