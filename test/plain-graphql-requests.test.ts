// The plain GraphQL request (POST /graphql, JSON; or a query by GET) is served by the operation runner, without Yoga
// (src/runner/graphql-requests.ts). A client must not be able to tell: the same requests, sent in the same
// order to a service with that path and to one where Yoga serves everything, get the same status, the same
// headers (but the date, the request id, and the rate-limit reset within a second) and the same bytes, and the
// services count the same. The corpus is what frontend apps send and what goes wrong for them: each Accept a
// client library sends, variables, compression, errors of every kind (bad documents, limits, wrong keys, other
// tenants' ids), and shapes this path leaves to Yoga; then the same corpus from pages on allowed and other
// origins where CORS is configured, and with trusted documents on. Budgets too: a request is one request of
// its key's budget, and one wrong key is one failure, whichever path serves it.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_FAILURES_PER_MINUTE } from '../src/limits/rate-limiter.ts';
import type { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import type { AppOptions } from '../src/app.ts';
import { documentIdOf } from '../src/graphql/trusted-documents.ts';
import { listDeploymentsRoute } from '../src/rest/deployments.route.ts';
import type { RunningApp } from './support/app-server.ts';
import { ACME, ACME_DEPLOYMENT, GLOBEX, GLOBEX_DEPLOYMENT, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';
import { expectSameAnswer, expectSameCounts, runnerRuns, servicePairs } from './support/runner-and-yoga.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
let cipher: SecretCipher;
const services = servicePairs(() => cipher);
let keys: { acme: string; acmeSecrets: string; both: string };

beforeAll(async () => {
  db = await createTestDatabase();
  cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  keys = {
    acme: await issueKey(db.orm.em, [ACME]),
    acmeSecrets: await issueKey(db.orm.em, [ACME], true),
    both: await issueKey(db.orm.em, [ACME, GLOBEX]),
  };
});
afterAll(async () => {
  await services.close();
  await db?.drop();
});

/** The service with the runner (the default), and the same service with Yoga serving every request. */
async function pair(perMinute = 1_000_000, options: AppOptions = {}, database = db): Promise<{ plain: RunningApp; yoga: RunningApp }> {
  const { runner, yoga } = await services.pair(database.orm, perMinute, options);
  return { plain: runner, yoga };
}

interface Case {
  name: string;
  body: string;
  headers?: Record<string, string>;
}

const post = (base: string, { body, headers = {} }: Case) =>
  rawRequest(`${base}/graphql`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

/**
 * The same request sent by GET, as GraphQL over HTTP clients send a query: its parameters in the query string,
 * variables and extensions as JSON. A body that is no JSON object is sent as the `query` parameter as it is.
 */
function asGet({ body, headers = {} }: Case): { target: string; headers: Record<string, string> } {
  let params: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(body);
    params = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed as Record<string, unknown> : { query: body };
  } catch {
    params = { query: body };
  }
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const { 'content-type': _type, ...rest } = headers;
  return { target: `/graphql?${search}`, headers: rest };
}

const getRequest = (base: string, request: Case) => {
  const { target, headers } = asGet(request);
  return rawRequest(`${base}${target}`, { headers });
};

const preparedRuns = runnerRuns;

const json = (query: string, extra: Record<string, unknown> = {}) => JSON.stringify({ query, ...extra });
const LIGHT = '{ deployments(limit: 20) { resources { uuid name status } } }';
const MEDIUM = `query Medium($limit: Int!) { deployments(limit: $limit) { resources { uuid name
  sourceConfig { resourceSpec { cpu memoryMb } } latestRevision { status } } } }`;
const SECRETS = `{ deployments(limit: 5) { resources { uuid secrets { name value } } } }`;
// Within the cost limit for small pages, over it for pages of 100 (100 × 100 × 100 revisions).
const COSTLY = `query Costly($n: Int!) { deployments(limit: $n) { resources { revisionPage(limit: $n) { resources {
  deployment { revisionPage(limit: $n) { resources { uuid } } } } } } } }`;

// Trusted documents: a manifest of a query without variables, one with, and a subscription.
const TENANT_NAME = 'query TenantName { tenant { name } }';
const DEPLOYMENT_BY_ID = 'query DeploymentById($id: ID!) { deployment(id: $id) { uuid name } }';
const SUBSCRIPTION = 'subscription Changes { deploymentUpdated { __typename } }';
const manifest = new Map([TENANT_NAME, DEPLOYMENT_BY_ID, MEDIUM, SUBSCRIPTION].map((document) => [documentIdOf(document), document]));

/** What a frontend sends where trusted documents are on (TRUSTED_DOCUMENTS), and what goes wrong. */
function trustedCorpus(): Case[] {
  const acme = { 'x-api-key': keys.acme };
  const byId = (document: string, extra: Record<string, unknown> = {}) => JSON.stringify({ documentId: documentIdOf(document), ...extra });
  return [
    { name: 'a trusted document by id', body: byId(TENANT_NAME), headers: acme },
    { name: 'a trusted document by id, its operation named', body: byId(TENANT_NAME, { operationName: 'TenantName' }), headers: acme },
    { name: 'a trusted document by id, another operation named', body: byId(TENANT_NAME, { operationName: 'Other' }), headers: acme },
    { name: 'a trusted document with variables', body: byId(DEPLOYMENT_BY_ID, { variables: { id: ACME_DEPLOYMENT } }), headers: acme },
    { name: 'a trusted document, another tenant\'s id', body: byId(DEPLOYMENT_BY_ID, { variables: { id: GLOBEX_DEPLOYMENT } }), headers: acme },
    { name: 'a trusted document, its variable missing', body: byId(DEPLOYMENT_BY_ID), headers: acme },
    { name: 'a trusted document, compressed', body: byId(MEDIUM, { variables: { limit: 20 } }), headers: { ...acme, 'accept-encoding': 'gzip, deflate, br, zstd' } },
    { name: 'a trusted subscription by id', body: byId(SUBSCRIPTION), headers: acme },
    { name: 'an unknown document id', body: byId('query Unknown { tenant { id } }'), headers: acme },
    { name: 'an empty document id', body: JSON.stringify({ documentId: '' }), headers: acme },
    { name: 'a document id that is not a string', body: JSON.stringify({ documentId: 42 }), headers: acme },
    { name: 'a document id and a query', body: byId(TENANT_NAME, { query: TENANT_NAME }), headers: acme },
    { name: 'a trusted document sent in full', body: json(TENANT_NAME), headers: acme },
    { name: 'a persisted-query hash of a trusted document', body: json(TENANT_NAME, { extensions: { persistedQuery: { version: 1, sha256Hash: documentIdOf(TENANT_NAME).slice(7) } } }), headers: acme },
    { name: 'neither a document nor an id', body: JSON.stringify({ variables: {} }), headers: acme },
    { name: 'a trusted document, no key', body: byId(TENANT_NAME) },
    { name: 'a trusted document, a wrong key', body: byId(TENANT_NAME), headers: { 'x-api-key': 'dmk_not-a-key-of-this-service' } },
  ];
}

function corpus(): Case[] {
  const acme = { 'x-api-key': keys.acme };
  const accepts = [undefined, '*/*', 'application/json', 'application/graphql-response+json',
    'application/graphql-response+json, application/json', 'application/graphql-response+json, application/json;q=0.9',
    // Apollo Client; urql (3 and 4); GraphiQL's fetcher.
    'application/graphql-response+json,application/json;q=0.9',
    'multipart/mixed, application/graphql-response+json, application/graphql+json, application/json',
    'application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed',
    'application/json, multipart/mixed',
    // Wildcards, q values, case, charsets, and headers that only a stream or a 406 answers.
    'application/*', 'text/html, */*;q=0.1', 'APPLICATION/GRAPHQL-RESPONSE+JSON', 'application/json; charset=UTF-8',
    'application/json;charset=latin1, application/graphql-response+json', 'multipart/mixed, application/json;q=0.1',
    'text/event-stream, application/graphql-response+json;q=0.5', 'application/graphql+json', '',
    'text/event-stream', 'application/xml', 'application/json; charset=latin1', 'multipart/mixed'];
  return [
    ...accepts.map((accept) => ({ name: `{ __typename }, Accept: ${accept}`, body: json('{ __typename }'), headers: { ...acme, ...(accept !== undefined && { accept }) } })),
    ...accepts.map((accept) => ({ name: `unknown field, Accept: ${accept}`, body: json('{ nope }'), headers: { ...acme, ...(accept !== undefined && { accept }) } })),
    { name: 'light page', body: json(LIGHT), headers: acme },
    { name: 'light page, charset in the content type', body: json(LIGHT), headers: { ...acme, 'content-type': 'application/json; charset=utf-8' } },
    { name: 'light page, Origin (no CORS configured)', body: json(LIGHT), headers: { ...acme, origin: 'https://app.example.com' } },
    { name: 'medium page, variables and operation name', body: json(MEDIUM, { variables: { limit: 20 }, operationName: 'Medium' }), headers: acme },
    ...['gzip', 'br', 'zstd', 'gzip, deflate, br, zstd', 'identity', 'gzip;q=0, br;q=0, zstd;q=0', 'x'.repeat(300)].map((encoding) =>
      ({ name: `medium page, Accept-Encoding: ${encoding.slice(0, 40)}`, body: json(MEDIUM, { variables: { limit: 20 } }), headers: { ...acme, 'accept-encoding': encoding } })),
    { name: 'small answer, Accept-Encoding (Vary only)', body: json('{ __typename }'), headers: { ...acme, 'accept-encoding': 'gzip' } },
    { name: 'secrets without the scope', body: json(SECRETS), headers: acme },
    { name: 'secrets with the scope', body: json(SECRETS), headers: { 'x-api-key': keys.acmeSecrets } },
    { name: 'another tenant\'s deployment by id', body: json(`{ deployment(id: "${GLOBEX_DEPLOYMENT}") { uuid name } }`), headers: acme },
    { name: 'own deployment by id', body: json(`{ deployment(id: "${ACME_DEPLOYMENT}") { uuid name } }`), headers: acme },
    { name: 'two tenants, none chosen', body: json('{ tenant { name } }'), headers: { 'x-api-key': keys.both } },
    { name: 'two tenants, one chosen', body: json('{ tenant { name } }'), headers: { 'x-api-key': keys.both, 'x-tenant-id': GLOBEX } },
    { name: 'a tenant not granted', body: json('{ tenant { name } }'), headers: { ...acme, 'x-tenant-id': GLOBEX } },
    { name: 'no key', body: json('{ __typename }') },
    { name: 'a wrong key', body: json('{ __typename }'), headers: { 'x-api-key': 'dmk_not-a-key-of-this-service' } },
    { name: 'syntax error', body: json('{ deployments('), headers: acme },
    { name: 'variable of the wrong type', body: json(MEDIUM, { variables: { limit: 'twenty' } }), headers: acme },
    { name: 'variable missing', body: json(MEDIUM), headers: acme },
    { name: 'limit out of range', body: json(MEDIUM, { variables: { limit: 100_000 } }), headers: acme },
    { name: 'cost within the limit, by its variables', body: json(COSTLY, { variables: { n: 2 } }), headers: acme },
    { name: 'cost over the limit, by its variables', body: json(COSTLY, { variables: { n: 100 } }), headers: acme },
    { name: 'a variable the cost cannot read', body: json(COSTLY, { variables: { n: 'many' } }), headers: acme },
    { name: 'unknown operation name', body: json(MEDIUM, { variables: { limit: 1 }, operationName: 'Other' }), headers: acme },
    { name: 'two operations, none named', body: json('query A { __typename } query B { __typename }'), headers: acme },
    { name: 'too deep', body: json(`{ deployments(limit: 1) { resources { ${'latestRevision { deployment { '.repeat(6)}uuid${' } }'.repeat(6)} } } }`), headers: acme },
    { name: 'introspection', body: json('{ __schema { queryType { name } } }'), headers: acme },
    { name: 'a subscription', body: json('subscription { deploymentUpdated { __typename } }'), headers: { ...acme, accept: 'application/json' } },
    { name: 'extensions (persisted query)', body: json('{ __typename }', { extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }), headers: acme },
    { name: 'a persisted-query hash alone', body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }), headers: acme },
    // Apollo Client 4 names itself in every request's extensions.
    { name: 'Apollo Client 4', body: json(MEDIUM, { variables: { limit: 2 }, operationName: 'Medium', extensions: { clientLibrary: { name: '@apollo/client', version: '4.0.4' } } }),
      headers: { ...acme, accept: 'application/graphql-response+json,application/json;q=0.9' } },
    { name: 'extensions null', body: json('{ __typename }', { extensions: null }), headers: acme },
    { name: 'extensions empty', body: json('{ __typename }', { extensions: {} }), headers: acme },
    { name: 'extensions a string', body: json('{ __typename }', { extensions: 'clientLibrary' }), headers: acme },
    { name: 'extensions a list', body: json('{ __typename }', { extensions: [] }), headers: acme },
    { name: 'extensions with an unknown query', body: json('{ nope }', { extensions: { clientLibrary: { name: 'x' } } }), headers: acme },
    { name: 'variables as a list', body: json(MEDIUM, { variables: [20] }), headers: acme },
    { name: 'query not a string', body: JSON.stringify({ query: 42 }), headers: acme },
    { name: 'a body that is not JSON', body: '{ "query": ', headers: acme },
    { name: 'a JSON list', body: '[{"query":"{ __typename }"}]', headers: acme },
  ];
}

describe('the plain GraphQL request', () => {
  it('answers every request of the corpus exactly as Yoga does, the first time and again', async () => {
    const { plain, yoga } = await pair();
    for (const round of ['first', 'again']) {
      for (const request of corpus()) {
        const [fromPlain, fromYoga] = [await post(plain.url, request), await post(yoga.url, request)];
        expectSameAnswer(fromPlain, fromYoga, `${request.name} (${round})`);
      }
    }
    await expectSameCounts(plain, yoga);
    // Prepared operations are part of the comparison: 83 of the corpus's requests ran so when this was written.
    expect(await preparedRuns(plain)).toBeGreaterThan(0);
    expect(await preparedRuns(yoga)).toBe(0);
  });

  it('answers the corpus sent by GET exactly as Yoga does (but its validators), trusted documents too, and counts the same', async () => {
    const acme = { 'x-api-key': keys.acme };
    const getOnly: Case[] = [
      { name: 'a mutation by GET', body: json('mutation { deleteDeployment(input: { id: "x" }) { __typename } }'), headers: acme },
      { name: 'a page view of GraphiQL with a query', body: json('{ __typename }'), headers: { ...acme, accept: 'text/html' } },
      { name: 'no key header (CSRF)', body: json('{ __typename }') },
      { name: 'Yoga\'s CSRF header, no key', body: json('{ __typename }'), headers: { 'x-graphql-yoga-csrf': '1' } },
      { name: 'a Bearer token', body: json(LIGHT), headers: { authorization: `Bearer ${keys.acme}` } },
      { name: 'variables that are no JSON', body: JSON.stringify({ query: MEDIUM, variables: '{limit' }), headers: acme },
      { name: 'an empty query', body: JSON.stringify({ query: '' }), headers: acme },
    ];
    for (const [options, cases] of [[{}, [...corpus(), ...getOnly]], [{ trustedDocuments: { mode: 'allow', manifest } }, [...trustedCorpus(), ...getOnly]]] as const) {
      const { plain, yoga } = await pair(1_000_000, options as AppOptions);
      for (const round of ['first', 'again']) {
        for (const request of cases) {
          const [fromPlain, fromYoga] = [await getRequest(plain.url, request), await getRequest(yoga.url, request)];
          expectSameAnswer(fromPlain, fromYoga, `GET ${request.name} (${round})`);
        }
      }
      await expectSameCounts(plain, yoga);
      expect(await preparedRuns(plain)).toBeGreaterThan(0);
      expect(await preparedRuns(yoga)).toBe(0);
    }
  });

  it('runs every operation on the runner from its first request, a REST route\'s too, and refuses a route\'s document sent to /graphql', async () => {
    const { plain, yoga } = await pair();
    const acme = { 'x-api-key': keys.acme };
    const both = async (request: Case) => expectSameAnswer(await post(plain.url, request), await post(yoga.url, request), request.name);
    const light = { name: 'light page', body: json(LIGHT), headers: acme };
    await both(light);
    expect(await preparedRuns(plain)).toBe(1);
    await both(light);
    expect(await preparedRuns(plain)).toBe(2);
    // Another operation name, other variables: the same document, on the runner; so is a refusal by cost.
    await both({ name: 'medium page', body: json(MEDIUM, { variables: { limit: 2 }, operationName: 'Medium' }), headers: acme });
    await both({ name: 'medium page again', body: json(MEDIUM, { variables: { limit: 3 } }), headers: acme });
    await both({ name: 'costly, small', body: json(COSTLY, { variables: { n: 2 } }), headers: acme });
    await both({ name: 'costly, over the limit', body: json(COSTLY, { variables: { n: 100 } }), headers: acme });
    expect(await preparedRuns(plain)).toBe(6);

    // The REST door runs its fixed documents without the limits (a legacy record takes about a hundred aliases):
    // sent to /graphql, even after the route has run it, such a document is refused.
    for (const app of [plain, yoga]) expect((await rawRequest(`${app.url}/v2/deployments?limit=1`, { headers: acme })).status).toBe(200);
    const restDocument = { name: 'a REST route\'s document', body: json(listDeploymentsRoute.document!, { variables: { limit: 1, offset: 0 } }), headers: acme };
    for (let i = 0; i < 2; i++) {
      const [fromPlain, fromYoga] = [await post(plain.url, restDocument), await post(yoga.url, restDocument)];
      expectSameAnswer(fromPlain, fromYoga);
      expect(JSON.parse(fromPlain.body.toString()).errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    }
    expect(await preparedRuns(plain)).toBe(7);
    await expectSameCounts(plain, yoga);
  });

  it('masks an unexpected error as Yoga does, the first time and again', async () => {
    // A database whose deployments lost a column: reading a page fails with PostgreSQL's error, not a GraphQL one.
    const broken = await createTestDatabase();
    const brokenServices = servicePairs(() => cipher);
    try {
      await importFixture(broken.orm.em.fork(), cipher);
      const acme = { 'x-api-key': await issueKey(broken.orm.em, [ACME]) };
      await broken.query('alter table deployment rename column name to name_before');
      const { runner: plain, yoga } = await brokenServices.pair(broken.orm);
      const light = { name: 'light page', body: json(LIGHT), headers: acme };
      for (const round of ['first', 'again']) {
        const [fromPlain, fromYoga] = [await post(plain.url, light), await post(yoga.url, light)];
        expectSameAnswer(fromPlain, fromYoga, round);
        expect(JSON.parse(fromPlain.body.toString()).errors).toEqual([expect.objectContaining({ message: 'Unexpected error.' })]);
      }
      expect(await preparedRuns(plain)).toBe(2);
      await expectSameCounts(plain, yoga);
    } finally {
      await brokenServices.close();
      await broken.drop();
    }
  });

  it.each([
    ['one origin', ['https://app.example.com']],
    ['two origins', ['https://app.example.com', 'https://admin.example.com']],
  ])('answers as Yoga does where CORS is configured (%s): allowed origins, other origins and no origin', async (_, corsOrigins) => {
    const { plain, yoga } = await pair(1_000_000, { corsOrigins });
    const origins = ['https://app.example.com', 'https://admin.example.com', 'https://evil.example.net', 'null', undefined];
    for (const origin of origins) {
      for (const request of corpus()) {
        const withOrigin = { ...request, headers: { ...request.headers, ...(origin && { origin }) } };
        const [fromPlain, fromYoga] = [await post(plain.url, withOrigin), await post(yoga.url, withOrigin)];
        expectSameAnswer(fromPlain, fromYoga, `${request.name}, Origin: ${origin}`);
      }
    }
  });

  it.each(['allow', 'require'] as const)('answers as Yoga does where trusted documents are on (%s), and counts the same', async (mode) => {
    const { plain, yoga } = await pair(1_000_000, { trustedDocuments: { mode, manifest } });
    for (const round of ['first', 'again']) {
      for (const request of [...trustedCorpus(), ...corpus()]) {
        const [fromPlain, fromYoga] = [await post(plain.url, request), await post(yoga.url, request)];
        expectSameAnswer(fromPlain, fromYoga, `${request.name} (${round})`);
      }
    }
    await expectSameCounts(plain, yoga);
  });

  it('spends one request of the budget per request, and answers the one over it as Yoga does', async () => {
    const { plain, yoga } = await pair(3);
    const request = { name: 'light page', body: json(LIGHT), headers: { 'x-api-key': keys.acme } };
    const answers: Array<[RawResponse, RawResponse]> = [];
    for (let i = 0; i < 4; i++) answers.push([await post(plain.url, request), await post(yoga.url, request)]);
    expect(answers.map(([answer]) => [answer.status, answer.headers['ratelimit-remaining']])).toEqual([[200, '2'], [200, '1'], [200, '0'], [429, '0']]);
    for (const [fromPlain, fromYoga] of answers) expectSameAnswer(fromPlain, fromYoga);
  });

  it('counts a wrong key once, so that guessing is stopped after as many tries as before', async () => {
    const { plain, yoga } = await pair();
    const guess = { name: 'a wrong key', body: json('{ __typename }'), headers: { 'x-api-key': 'dmk_guessing-0000000000000000000' } };
    const statuses = async (app: RunningApp) => {
      const seenStatuses: number[] = [];
      for (let i = 0; i <= AUTH_FAILURES_PER_MINUTE; i++) seenStatuses.push((await post(app.url, guess)).status);
      return seenStatuses;
    };
    const fromPlain = await statuses(plain);
    expect(fromPlain).toEqual([...Array<number>(AUTH_FAILURES_PER_MINUTE).fill(401), 429]);
    expect(fromPlain).toEqual(await statuses(yoga));
  });

  it('answers requests that arrive together each with the answer it gets alone, also when some of their clients have gone', async () => {
    const { plain } = await pair();
    // Two tenants' pages under sixty names, so that no answer can pass for another's.
    const requests = Array.from({ length: 60 }, (_, i) => ({
      body: json(`{ answer${i}: __typename deployments(limit: 5) { resources { name } } }`),
      headers: (i % 2 ? { 'x-api-key': keys.both, 'x-tenant-id': GLOBEX } : { 'x-api-key': keys.acme }) as Record<string, string>,
    }));
    // Each alone first: the answer to expect, and the document validated, so that the requests below run prepared.
    const alone: string[] = [];
    for (const request of requests) alone.push((await post(plain.url, { name: 'alone', ...request })).body.toString('utf8'));
    expect(new Set(alone).size).toBe(60);
    const prepared = async () => (await plain.app.metrics.runnerOperations.get()).values[0]!.value;
    const preparedBefore = await prepared();
    // Then all at once, on connections of their own, so that the service finishes many in one turn and writes
    // them together (src/http/writes-at-end-of-turn.ts); every third client hangs up as soon as it has sent.
    const answers = await Promise.all(requests.map(({ body, headers }, i) => {
      const sent = { 'content-type': 'application/json', ...headers, 'x-request-id': `together-${i}` };
      if (i % 3 === 2) return hangUpAfterSending(plain.url, body, sent).then(() => undefined);
      return rawRequest(`${plain.url}/graphql`, { method: 'POST', body, headers: sent });
    }));
    answers.forEach((answer, i) => {
      if (i % 3 === 2) return;
      expect([answer!.status, answer!.headers['x-request-id'], answer!.body.toString('utf8')]).toEqual([200, `together-${i}`, alone[i]]);
    });
    expect(await prepared() - preparedBefore).toBeGreaterThanOrEqual(40);
    // And the service still answers afterwards.
    expect((await post(plain.url, { name: 'after', body: json('{ __typename }'), headers: { 'x-api-key': keys.acme } })).status).toBe(200);
  });
});

/** Sends a request and closes the connection without waiting for the answer. */
function hangUpAfterSending(base: string, body: string, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve) => {
    const request = http.request(`${base}/graphql`, { method: 'POST', headers, agent: false });
    request.on('error', () => resolve());
    request.end(body, () => {
      request.destroy();
      resolve();
    });
  });
}
