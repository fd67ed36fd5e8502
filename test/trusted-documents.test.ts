// Trusted documents over HTTP, as a frontend and an attacker see them: with `allow` a manifest's documents run
// by id next to documents sent in full; with `require` only the manifest's run, with a clear error for anything
// else, GraphiQL off, and the REST door's own fixed operations still running. A document run by id is
// authenticated, rate-limited, cost-limited, tenant-scoped and logged like a document sent in full.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppOptions } from '../src/app.ts';
import { documentIdOf } from '../src/graphql/trusted-documents.ts';
import { RateLimiter } from '../src/limits/rate-limiter.ts';
import { createLogger } from '../src/observability/logger.ts';
import { Metrics } from '../src/observability/metrics.ts';
import type { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, ACME_DEPLOYMENT, ACME_INTEGRATION, GLOBEX, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const TENANT_NAME = 'query TenantName { tenant { name } }';
const DEPLOYMENT = 'query Deployment($id: ID!) { deployment(id: $id) { uuid } }';
// Repositories → integration → repositories … four lists deep: millions by the cost estimate (limit 750,000).
const REPOSITORY_CYCLE = `query RepositoryCycle($id: ID!) { repositories(integrationId: $id) { integration { repositories {
  integration { repositories { integration { repositories { name } } } } } } } }`;
const manifest = new Map([TENANT_NAME, DEPLOYMENT, REPOSITORY_CYCLE].map((document) => [documentIdOf(document), document]));
const TENANT_NAME_ID = documentIdOf(TENANT_NAME);
const UNKNOWN_ID = documentIdOf('query Unknown { tenant { id } }');

let db: TestDatabase;
let cipher: SecretCipher;
let acmeKey: string;
let globexKey: string;
const apps: RunningApp[] = [];
const limiters: RateLimiter[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  acmeKey = await issueKey(db.orm.em, [ACME]);
  globexKey = await issueKey(db.orm.em, [GLOBEX]);
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await Promise.all(limiters.map((limiter) => limiter.close()));
  await db?.drop();
});

async function appWith(mode: 'allow' | 'require' | 'off', options: AppOptions = {}, rateLimiter?: RateLimiter): Promise<RunningApp> {
  const trustedDocuments = mode === 'off' ? undefined : { mode, manifest };
  const app = await startApp(db.orm, cipher, undefined, { rateLimiter, options: { ...options, trustedDocuments } });
  apps.push(app);
  return app;
}

/** POST /graphql with any body, as a client sends it. */
async function post(app: RunningApp, body: Record<string, unknown>, key: string | null = acmeKey) {
  const response = await fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...(key ? { 'x-api-key': key } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() as any };
}

const apq = (id: string) => ({ persistedQuery: { version: 1, sha256Hash: id.replace(/^sha256:/, '') } });

describe('TRUSTED_DOCUMENTS=off (the default)', () => {
  let app: RunningApp;
  beforeAll(async () => { app = await appWith('off'); });

  it('runs documents sent in full and does not know document ids', async () => {
    expect((await post(app, { query: TENANT_NAME })).body).toEqual({ data: { tenant: { name: 'acme' } } });
    const byId = await post(app, { documentId: TENANT_NAME_ID });
    expect(byId.status).toBe(400);
    expect(byId.body.errors[0].message).toBe('Unexpected parameter "documentId" in the request body.');
  });
});

describe('TRUSTED_DOCUMENTS=allow', () => {
  let app: RunningApp;
  beforeAll(async () => { app = await appWith('allow'); });

  it('runs a manifest document by its id: documentId in the body, in the URL of a GET, or as a persisted-query hash', async () => {
    const expected = { data: { tenant: { name: 'acme' } } };
    expect(await post(app, { documentId: TENANT_NAME_ID })).toMatchObject({ status: 200, body: expected });
    expect(await post(app, { extensions: apq(TENANT_NAME_ID) })).toMatchObject({ status: 200, body: expected });
    const get = await fetch(`${app.url}/graphql?documentId=${encodeURIComponent(TENANT_NAME_ID)}`, { headers: { 'x-api-key': acmeKey } });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual(expected);
  });

  it('passes variables to the document, in a POST body or the URL of a GET', async () => {
    const expected = { data: { deployment: { uuid: ACME_DEPLOYMENT } } };
    expect((await post(app, { documentId: documentIdOf(DEPLOYMENT), variables: { id: ACME_DEPLOYMENT } })).body).toEqual(expected);
    const url = `${app.url}/graphql?${new URLSearchParams({ documentId: documentIdOf(DEPLOYMENT), variables: JSON.stringify({ id: ACME_DEPLOYMENT }) })}`;
    expect(await (await fetch(url, { headers: { 'x-api-key': acmeKey } })).json()).toEqual(expected);
  });

  it('also runs documents sent in full (the document wins over an id sent with it), and serves GraphiQL', async () => {
    expect((await post(app, { query: '{ tenant { id } }' })).body.data.tenant.id).toEqual(expect.any(String));
    expect((await post(app, { query: '{ tenant { id } }', documentId: TENANT_NAME_ID })).body.data.tenant).toEqual({ id: expect.any(String) });
    const page = await fetch(`${app.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('refuses an unknown id with PERSISTED_QUERY_NOT_FOUND (HTTP 400), naming the id', async () => {
    const { status, body } = await post(app, { documentId: UNKNOWN_ID });
    expect(status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(body.errors).toEqual([{
      message: `Document ${UNKNOWN_ID} is not one of this server's trusted documents: regenerate your operations' manifest and deploy it with the server.`,
      extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' },
    }]);
  });

  it('tells a request that sends neither a document nor an id what it may send', async () => {
    expect(await post(app, { variables: {} })).toMatchObject({ status: 400, body: { errors: [{
      message: 'Must provide a query string, or send a document\'s id as "documentId" (sha256:<hex>), or its hash as extensions.persistedQuery.sha256Hash (version 1).',
      extensions: { code: 'BAD_REQUEST' },
    }] } });
  });
});

describe('TRUSTED_DOCUMENTS=require', () => {
  let app: RunningApp;
  let metrics: Metrics;
  const lines: string[] = [];
  beforeAll(async () => {
    metrics = new Metrics();
    const destination = new Writable({ write(chunk, _encoding, done) { lines.push(...chunk.toString().split('\n').filter(Boolean)); done(); } });
    // GraphiQL asked for: still off, since it could run nothing.
    app = await appWith('require', { graphiql: true, metrics, logger: createLogger('info', destination) });
  });

  it('runs the manifest documents by id', async () => {
    expect(await post(app, { documentId: TENANT_NAME_ID })).toMatchObject({ status: 200, body: { data: { tenant: { name: 'acme' } } } });
    const withVariables = await post(app, { extensions: apq(documentIdOf(DEPLOYMENT)), variables: { id: ACME_DEPLOYMENT } });
    expect(withVariables.body).toEqual({ data: { deployment: { uuid: ACME_DEPLOYMENT } } });
  });

  it('refuses a document sent in full with PERSISTED_QUERY_REQUIRED (HTTP 400), even next to a known id', async () => {
    const refusal = {
      message: 'This server runs only its trusted documents, not documents sent in full: send a document\'s id as "documentId" (sha256:<hex>), or its hash as extensions.persistedQuery.sha256Hash (version 1).',
      extensions: { code: 'PERSISTED_QUERY_REQUIRED' },
    };
    for (const body of [{ query: TENANT_NAME }, { query: '{ deployments { resources { name } } }', documentId: TENANT_NAME_ID }]) {
      expect(await post(app, body)).toMatchObject({ status: 400, body: { errors: [refusal] } });
    }
    const get = await fetch(`${app.url}/graphql?query=${encodeURIComponent(TENANT_NAME)}`, { headers: { 'x-api-key': acmeKey } });
    expect(get.status).toBe(400);
    expect((await get.json() as any).errors[0].extensions.code).toBe('PERSISTED_QUERY_REQUIRED');
  });

  it('refuses an unknown id, and a request that names no document', async () => {
    expect(await post(app, { documentId: UNKNOWN_ID })).toMatchObject({ status: 400, body: { errors: [{ extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] } });
    expect(await post(app, { extensions: apq('0'.repeat(64)) })).toMatchObject({ status: 400, body: { errors: [{ extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] } });
    expect(await post(app, { variables: {} })).toMatchObject({ status: 400, body: { errors: [{ extensions: { code: 'PERSISTED_QUERY_REQUIRED' } }] } });
    const counted = await metrics.registry.getSingleMetricAsString('graphql_errors_total');
    expect(counted).toMatch(/graphql_errors_total\{operation="anonymous",code="PERSISTED_QUERY_REQUIRED"\} [1-9]/);
    expect(counted).toMatch(/graphql_errors_total\{operation="anonymous",code="PERSISTED_QUERY_NOT_FOUND"\} 2/);
  });

  it('authenticates a request by id before looking at the id: no key or a wrong key is 401, known id or not', async () => {
    for (const documentId of [TENANT_NAME_ID, UNKNOWN_ID]) {
      for (const key of [null, 'dmk_notAKeyAtAll']) {
        const { status, body } = await post(app, { documentId }, key);
        expect(status).toBe(401);
        expect(body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      }
    }
  });

  it("runs a document by id in the caller's tenant", async () => {
    expect((await post(app, { documentId: TENANT_NAME_ID }, globexKey)).body).toEqual({ data: { tenant: { name: 'globex' } } });
  });

  it('applies the cost limit to a document of the manifest', async () => {
    const { status, body } = await post(app, { documentId: documentIdOf(REPOSITORY_CYCLE), variables: { id: ACME_INTEGRATION } });
    expect(status).toBe(400);
    expect(body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(body.errors[0].message).toMatch(/^Query cost limit of 750000 exceeded/);
  });

  it('logs a request by id with its operation name, like any other, and the id', async () => {
    const requestId = randomUUID();
    const response = await fetch(`${app.url}/graphql`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': acmeKey, 'x-request-id': requestId },
      body: JSON.stringify({ documentId: TENANT_NAME_ID }),
    });
    expect(response.status).toBe(200);
    const line = async () => lines.map((text) => JSON.parse(text)).find((entry) => entry.msg === 'request' && entry.requestId === requestId);
    for (const deadline = Date.now() + 10_000; !(await line()) && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await line()).toMatchObject({ route: '/graphql', status: 200, operation: 'TenantName', documentId: TENANT_NAME_ID, tenantId: ACME });
  });

  it('serves no GraphiQL, even when asked to: a browser gets no page, and / sends it to the REST docs', async () => {
    const page = await fetch(`${app.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(406);
    expect(await page.text()).not.toMatch(/graphiql/i);
    const root = await fetch(`${app.url}/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(root.headers.get('location')).toBe('/docs');
  });

  it("still runs the REST door's own fixed operations", async () => {
    const list = await fetch(`${app.url}/v2/deployments?limit=1`, { headers: { 'x-api-key': acmeKey } });
    expect(list.status).toBe(200);
    expect((await list.json() as any).resources).toHaveLength(1);
    const one = await fetch(`${app.url}/v2/deployments/${ACME_DEPLOYMENT}`, { headers: { 'x-api-key': acmeKey } });
    expect(one.status).toBe(200);
    expect((await one.json() as any).id).toBe(ACME_DEPLOYMENT);
    const revisions = await fetch(`${app.url}/v2/deployments/${ACME_DEPLOYMENT}/revisions`, { headers: { 'x-api-key': acmeKey } });
    expect(revisions.status).toBe(200);
  });
});

describe('rate limits with trusted documents required', () => {
  it('spend the budget on requests by id, and refuse past it with 429 before the id is looked up', async () => {
    const limiter = new RateLimiter({ perMinute: 2, keyPrefix: `trusted-${randomUUID()}` });
    limiters.push(limiter);
    const app = await appWith('require', {}, limiter);
    expect((await post(app, { documentId: TENANT_NAME_ID })).headers.get('ratelimit-remaining')).toBe('1');
    expect((await post(app, { documentId: UNKNOWN_ID })).status).toBe(400);
    const refused = await post(app, { documentId: TENANT_NAME_ID });
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
  });
});
