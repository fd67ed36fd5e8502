// Abuse limits (OWASP GraphQL cheat sheet), each attacked: the attack is refused before any resolver runs,
// while what real clients send (the fullest legitimate selection, GraphiQL's introspection) still gets through.
import { getIntrospectionQuery, type GraphQLObjectType } from 'graphql';
import { schema } from '../src/graphql/schema.ts';
import { selectEverything } from './support/select-everything.ts';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../src/limits/graphql-limits.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
let dev: RunningApp;
let production: RunningApp;
let key: string;
let statements = 0;
const ORIGIN = 'https://app.example.com';

beforeAll(async () => {
  db = await createTestDatabase({ onQuery: () => statements++ });
  const cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  key = await issueKey(db.orm.em, [ACME], true);
  dev = await startApp(db.orm, cipher);
  production = await startApp(db.orm, cipher, undefined, {
    options: { introspection: false, graphiql: false, corsOrigins: [ORIGIN], maxBodyBytes: 4096 },
  });
});
afterAll(async () => {
  await dev?.close();
  await production?.close();
  await db?.drop();
});

const auth = () => ({ 'x-api-key': key });
const everything = selectEverything(schema.getType('Deployment') as GraphQLObjectType);

/** The request is refused with QUERY_TOO_COMPLEX, and the database never saw it (no resolver ran). */
async function expectRefused(app: RunningApp, query: string, message: RegExp) {
  const before = statements;
  const { status, body } = await app.graphql(query, auth());
  expect(status).toBe(400);
  expect(body.data).toBeUndefined();
  expect(body.errors[0]).toMatchObject({ message: expect.stringMatching(message), extensions: { code: 'QUERY_TOO_COMPLEX' } });
  // Authentication runs first (it may take one statement without the key cache); the page query must not.
  expect(statements - before).toBeLessThanOrEqual(1);
}

const nested = (depth: number) => {
  let selection = 'name';
  for (let i = 0; i < depth; i++) selection = i % 2 === 0 ? `deployment { ${selection} }` : `revisions { ${selection} }`;
  return `{ deployments { resources { revisions { ${selection} } } } }`;
};

describe('query limits', () => {
  it('refuses a query nested deeper than the limit (deployment → revisions → deployment …)', async () => {
    await expectRefused(dev, nested(10), new RegExp(`depth limit of ${GRAPHQL_LIMITS.maxDepth} exceeded`));
  });

  it('refuses depth hidden in fragments', async () => {
    const fragments = `fragment D on Deployment { revisions { ...R } } fragment R on Revision { deployment { revisions { deployment { revisions { deployment { revisions { deployment { revisions { uuid } } } } } } } } }`;
    await expectRefused(dev, `{ deployments { resources { ...D } } } ${fragments}`, /depth limit/);
  });

  it('refuses a query within the depth and alias limits that costs too much (the fullest page, three times)', async () => {
    const pages = [1, 2, 3].map((i) => `p${i}: deployments(limit: 100) { resources ${everything} }`).join(' ');
    await expectRefused(dev, `{ ${pages} }`, new RegExp(`cost limit of ${GRAPHQL_LIMITS.maxCost} exceeded`));
  });

  it('counts lists without a page argument too: walking a cycle of lists multiplies (repositories → integration → …)', async () => {
    const { body } = await dev.graphql('{ integrations { uuid } }', auth());
    const integrationId = body.data.integrations[0].uuid;
    let selection = 'name';
    for (let i = 0; i < 3; i++) selection = `repositories { integration { ${selection} } }`;
    await expectRefused(dev, `{ repositories(integrationId: "${integrationId}") { integration { ${selection} } } }`, /cost limit/);
    // One level of the same walk is an ordinary question.
    const shallow = await dev.graphql(`{ repositories(integrationId: "${integrationId}") { integration { repositories { name } } } }`, auth());
    expect(shallow.body.errors).toBeUndefined();
  });

  it('counts the page size whether it is written in the query or passed in a variable', async () => {
    const page = (size: string) => `deployments${size} { resources ${everything} }`;
    await expectRefused(dev, `{ a: ${page('(limit: 100)')} b: ${page('(limit: 100)')} c: ${page('(limit: 100)')} }`, /cost limit/);
    const byVariable = await dev.graphql(`query($n: Int!) { a: ${page('(limit: $n)')} b: ${page('(limit: $n)')} c: ${page('(limit: $n)')} }`, auth(), { n: 100 });
    expect(byVariable.body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    const relay = await dev.graphql(`query($n: Int!) { a: deploymentsConnection(first: $n) { edges { node ${everything} } } b: deploymentsConnection(last: $n) { edges { node ${everything} } } c: deploymentsConnection(first: $n) { edges { node ${everything} } } }`, auth(), { n: 100 });
    expect(relay.body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    // The same selections with small pages are fine: the size counts, not the shape.
    const small = await dev.graphql(`query($n: Int!) { a: ${page('(limit: $n)')} b: ${page('(limit: $n)')} c: ${page('(limit: $n)')} }`, auth(), { n: 5 });
    expect(small.body.errors).toBeUndefined();
  });

  it('costs a document again when a variable that sizes it changes, whatever its other variables (its cost is kept per page size)', async () => {
    const page = (size: string) => `deployments${size} { resources ${everything} }`;
    const query = `query($n: Int!, $name: String, $more: Boolean!) { a: ${page('(limit: $n, filter: { nameContains: $name })')} b: ${page('(limit: $n)')} c: ${page('(limit: $n) @include(if: $more)')} }`;
    const answer = (variables: Record<string, unknown>) => dev.graphql(query, auth(), variables);
    expect((await answer({ n: 5, name: 'a', more: true })).body.errors).toBeUndefined();
    expect((await answer({ n: 5, name: 'b', more: false })).body.errors).toBeUndefined();
    expect((await answer({ n: 100, name: 'a', more: false })).body.errors).toBeUndefined();
    // The same page size and name, with the directive's variable turned: the third page now counts.
    expect((await answer({ n: 100, name: 'a', more: true })).body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    expect((await answer({ n: 5, name: 'c', more: true })).body.errors).toBeUndefined();
  });

  it('answers a page larger than a field serves with that argument\'s range, not the cost limit (limit: 1000000)', async () => {
    const page = `resources ${everything}`;
    for (const [query, variables, argument] of [
      [`{ deployments(limit: 1000000) { ${page} } }`, undefined, 'limit'],
      ['query($n: Int!) { deploymentsConnection(first: $n) { edges { node { uuid } } } }', { n: 1_000_000 }, 'first'],
    ] as const) {
      const before = statements;
      const { body } = await dev.graphql(query, auth(), variables);
      expect(body.errors, query).toEqual([expect.objectContaining({
        message: `Invalid argument "${argument}": must be between 1 and 100; got 1000000.`, extensions: { code: 'BAD_USER_INPUT', argument },
      })]);
      expect(statements - before).toBeLessThanOrEqual(1);
    }
    // A log page may be ten times larger, and is refused past that by its own range too.
    const logs = await dev.graphql('{ deployments(limit: 1) { resources { revisions { logPage(phase: BUILD, limit: 5000) { offset } } } } }', auth());
    expect(logs.body.errors?.[0]?.message).toMatch(/"limit": must be between 1 and 1000; got 5000/);
  });

  it('refuses more aliases than the limit (alias-based batching of the same field)', async () => {
    const aliases = Array.from({ length: GRAPHQL_LIMITS.maxAliases + 1 }, (_, i) => `a${i}: tenant { name }`).join(' ');
    await expectRefused(dev, `{ ${aliases} }`, /Aliases limit/);
  });

  it('refuses more directives than the limit', async () => {
    const fields = Array.from({ length: GRAPHQL_LIMITS.maxDirectives + 1 }, () => 'name @include(if: true)').join(' ');
    await expectRefused(dev, `{ tenant { ${fields} } }`, /Directives limit/);
  });

  it('refuses a document with more tokens than the limit, before parsing it whole', async () => {
    const names = Array.from({ length: GRAPHQL_LIMITS.maxTokens }, () => 'name').join(' ');
    await expectRefused(dev, `{ tenant { ${names} } }`, /Token limit/);
  });

  it('refuses a document nested deeper than the limit before the parser recurses (a literal 5,000 levels deep was a 500)', async () => {
    // graphql-js parses a value literal recursively: within the token limit, about 1,300 nested objects overflowed the stack.
    const literal = (open: string, close: string, levels: number) => `${open.repeat(levels)}1${close.repeat(levels)}`;
    for (const value of [literal('{a:', '}', 5000), literal('[', ']', 5000), literal('{a:', '}', 1300), literal('[', ']', GRAPHQL_LIMITS.maxNesting)]) {
      const document = `mutation { createDeployment(input: {name: "deep", source: EXTERNAL_DOCKER, sourceConfig: {resourceSpec: {volumes: [{name: "v", configMap: ${value}}]}}}) { __typename } }`;
      await expectRefused(dev, document, new RegExp(`Nesting limit of ${GRAPHQL_LIMITS.maxNesting} exceeded`));
    }
  });

  it('parses a free-form literal within the nesting limit, whose own depth the mutation then refuses (InvalidInputError)', async () => {
    const writer = await issueKey(db.orm.em, [ACME], false, true);
    const configMap = `${'{a:'.repeat(40)}1${'}'.repeat(40)}`;
    const { status, body } = await dev.graphql(`mutation { createDeployment(input: {name: "deep", source: EXTERNAL_DOCKER, sourceConfig: {resourceSpec: {volumes: [{name: "v", configMap: ${configMap}}]}}}) {
      __typename ... on InvalidInputError { problems { restLocation message } } } }`, { 'x-api-key': writer });
    expect({ status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
    expect(body.data.createDeployment).toEqual({
      __typename: 'InvalidInputError',
      problems: [{ restLocation: ['source_config', 'resource_spec', 'volumes', '0', 'configMap'], message: 'Value error, must not be nested more than 32 levels deep' }],
    });
  });

  it('lets the fullest legitimate page through (every field reachable from 100 deployments)', async () => {
    const { body } = await dev.graphql(`{ deployments(limit: 100) { offset hasNextPage totalCount resources ${everything} } }`, auth());
    expect(body.errors).toBeUndefined();
    expect(body.data.deployments.resources.length).toBeGreaterThan(0);
  });

  it("lets GraphiQL's introspection query through (exempt from depth and cost) while introspection is on", async () => {
    const { body } = await dev.graphql(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true }), auth());
    expect(body.errors).toBeUndefined();
    expect(body.data.__schema.types.some((t: { name: string }) => t.name === 'Deployment')).toBe(true);
  });

  it('refuses batched requests (an array of operations)', async () => {
    const response = await fetch(`${dev.url}/graphql`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...auth() },
      body: JSON.stringify([{ query: '{ tenant { name } }' }, { query: '{ tenant { name } }' }]),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].message).toMatch(/Batching is not supported/);
  });
});

describe('configured for production', () => {
  it('refuses introspection', async () => {
    for (const query of ['{ __schema { types { name } } }', '{ __type(name: "Deployment") { fields { name } } }']) {
      const { body } = await production.graphql(query, auth());
      expect(body.data).toBeUndefined();
      expect(body.errors[0].message).toMatch(/introspection/i);
    }
  });

  it('still answers __typename (clients rely on it; it reveals nothing)', async () => {
    const { body } = await production.graphql('{ tenant { __typename name } }', auth());
    expect(body.data.tenant.__typename).toBe('Tenant');
  });

  it('gives no field suggestions that would reveal the schema', async () => {
    const { body: devBody } = await dev.graphql('{ tenant { nam } }', auth());
    expect(devBody.errors[0].message).toMatch(/Did you mean "name"/);
    const { body } = await production.graphql('{ tenant { nam } }', auth());
    expect(body.errors[0].message).toMatch(/Cannot query field "nam"/);
    expect(body.errors[0].message).not.toMatch(/Did you mean|name"/);
  });

  it('serves no GraphiQL page', async () => {
    const page = await fetch(`${dev.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(await page.text()).toMatch(/graphiql/i);
    const refused = await fetch(`${production.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(await refused.text()).not.toMatch(/graphiql/i);
  });
});

describe('unexpected errors', () => {
  it('are masked: no message, stack or SQL of the failure reaches the client', async () => {
    // A cursor that decodes but names a position the database cannot compare is caught as bad input; to get
    // a genuinely unexpected failure, ask while the tables are renamed away.
    await db.query('alter table deployment rename to deployment_away');
    try {
      const { body } = await dev.graphql('{ deployments { resources { name } } }', auth());
      expect(body.errors[0].message).toBe('Unexpected error.');
      expect(JSON.stringify(body)).not.toMatch(/deployment_away|relation|select|stack|at /i);
    } finally {
      await db.query('alter table deployment_away rename to deployment');
    }
  });
});

/** A raw request, so that the body can be chunked (no Content-Length). */
function rawPost(url: string, path: string, chunks: string[], headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method: 'POST', headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('request body size', () => {
  const bigBody = JSON.stringify({ query: '{ tenant { name } }', variables: { padding: 'x'.repeat(5000) } });

  it('answers 413 to a declared Content-Length over the limit, before reading the body', async () => {
    const response = await fetch(`${production.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth() }, body: bigBody });
    expect(response.status).toBe(413);
    expect((await response.json()).errors[0]).toMatchObject({ extensions: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('answers 413 to a chunked body that grows past the limit', async () => {
    const chunks = bigBody.match(/.{1,1000}/g)!;
    const { status, body } = await rawPost(production.url, '/graphql', chunks, { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...auth() });
    expect(status).toBe(413);
    expect(JSON.parse(body).errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('serves a chunked body within the limit', async () => {
    const small = JSON.stringify({ query: '{ tenant { name } }' });
    const { status, body } = await rawPost(production.url, '/graphql', [small.slice(0, 10), small.slice(10)], { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...auth() });
    expect(status).toBe(200);
    expect(JSON.parse(body).data.tenant.name).toBeTruthy();
  });

  it('answers a too-large request to a REST path in the legacy shape', async () => {
    const response = await fetch(`${production.url}/v2/deployments`, { method: 'POST', headers: auth(), body: 'x'.repeat(5000) });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ detail: 'Request body is larger than the limit of 4096 bytes' });
  });
});

describe('CSRF prevention', () => {
  it('does not execute a form post (a "simple" request a page on another site can send)', async () => {
    for (const contentType of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
      const before = statements;
      const response = await fetch(`${dev.url}/graphql`, { method: 'POST', headers: { 'content-type': contentType }, body: 'query={tenant{name}}' });
      expect(response.status).toBe(403);
      expect(statements).toBe(before);
    }
  });

  it('does not execute a GET without a custom header (an <img> or link on another site)', async () => {
    const response = await fetch(`${dev.url}/graphql?query=${encodeURIComponent('{ tenant { name } }')}`);
    expect(response.status).toBe(403);
    expect((await response.json()).errors[0].message).toMatch(/CSRF/);
  });

  it('executes a GET that carries the API key header (which a browser sends only after a CORS preflight)', async () => {
    const response = await fetch(`${dev.url}/graphql?query=${encodeURIComponent('{ tenant { name } }')}`, { headers: auth() });
    expect(response.status).toBe(200);
    expect((await response.json()).data.tenant.name).toBeTruthy();
  });
});

describe('CORS', () => {
  const preflight = (app: RunningApp, path: string, origin: string) => fetch(`${app.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key' },
  });

  it('is off unless configured: no Access-Control headers, and OPTIONS is not a supported method', async () => {
    const response = await preflight(dev, '/graphql', ORIGIN);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const rest = await preflight(dev, '/v2/deployments', ORIGIN);
    expect(rest.status).toBe(405);
    expect(rest.headers.get('access-control-allow-origin')).toBeNull();
    const answer = await fetch(`${dev.url}/graphql`, { method: 'POST', headers: { origin: ORIGIN, 'content-type': 'application/json', ...auth() }, body: JSON.stringify({ query: '{ tenant { name } }' }) });
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows a configured origin, with the headers clients need to send and to read', async () => {
    const response = await preflight(production, '/graphql', ORIGIN);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(response.headers.get('access-control-allow-headers')).toMatch(/x-api-key/);
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    const answer = await fetch(`${production.url}/v2/deployments?limit=1`, { headers: { origin: ORIGIN, ...auth() } });
    expect(answer.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(answer.headers.get('access-control-expose-headers')).toMatch(/x-request-id/);
  });

  it('does not allow another origin', async () => {
    const response = await preflight(production, '/graphql', 'https://evil.example.net');
    // With one origin configured, the answer names that origin, which the browser compares and refuses.
    expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const answer = await fetch(`${production.url}/v2/deployments?limit=1`, { headers: { origin: 'https://evil.example.net', 'x-api-key': key } });
    expect(answer.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });
});

describe('variables that do not fit the operation', () => {
  it('are a request error (400, BAD_USER_INPUT) naming the variable, never run', async () => {
    const query = 'query($n: Int!, $name: String) { deployments(limit: $n, filter: { nameContains: $name }) { offset } }';
    // Costed once with variables that fit: the cost kept for it does not let others through.
    expect((await dev.graphql(query, auth(), { n: 5, name: 'x' })).body.errors).toBeUndefined();
    for (const variables of [{ n: 'abc' }, {}, { n: 5, name: 7 }]) {
      const { status, body } = await dev.graphql(query, auth(), variables);
      expect(status).toBe(400);
      expect(body.data).toBeUndefined();
      expect(body.errors[0]).toMatchObject({ message: expect.stringContaining('$n'), extensions: { code: 'BAD_USER_INPUT' } });
    }
  });
});
