// The GraphQL-over-HTTP specification, checked by graphql-http's own audit suite against the live server:
// every MUST and SHOULD audit has to pass (a failed SHOULD is a "warn", a failed MUST an "error").
import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from './support/app-server.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';

let db: TestDatabase;
let app: RunningApp;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  key = await issueKey(db.orm.em, [ACME]);
  app = await startApp(db.orm, cipher);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('GraphQL over HTTP (graphql-http serverAudits, with a valid API key)', () => {
  const audits = serverAudits({
    url: () => `${app.url}/graphql`,
    fetchFn: (input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      headers.set('x-api-key', key);
      return fetch(input, { ...init, headers });
    },
  });

  it('runs the whole suite', () => {
    expect(audits.length).toBeGreaterThan(40);
  });

  for (const audit of audits) {
    it(audit.name, async () => {
      const result = await audit.fn();
      expect({ status: result.status, reason: 'reason' in result ? result.reason : undefined })
        .toEqual({ status: 'ok', reason: undefined });
    });
  }
});

// GraphiQL sends the whole editor, however many operations it holds, and names the one to run; so may any
// client. Each name must run its own operation, in whatever order the names come, by POST and by GET.
describe('a document with several operations', () => {
  const document = `query TenantName { tenant { name } }
query FirstDeployment($limit: Int!) { deployments(limit: $limit) { resources { uuid } } }`;

  const post = async (operationName: string) => {
    const response = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query: document, operationName, variables: operationName === 'FirstDeployment' ? { limit: 1 } : undefined }),
    });
    return response.json();
  };
  const get = async (operationName: string) => {
    const search = new URLSearchParams({ query: document, operationName });
    if (operationName === 'FirstDeployment') search.set('variables', JSON.stringify({ limit: 1 }));
    const response = await fetch(`${app.url}/graphql?${search}`, { headers: { 'x-api-key': key } });
    return response.json();
  };

  it('runs the operation each request names', async () => {
    const tenantName = { data: { tenant: { name: expect.any(String) } } };
    const firstDeployment = { data: { deployments: { resources: [{ uuid: expect.any(String) }] } } };
    for (const send of [post, get, post]) {
      expect(await send('TenantName')).toEqual(tenantName);
      expect(await send('FirstDeployment')).toEqual(firstDeployment);
      expect(await send('TenantName')).toEqual(tenantName);
    }
  });
});
