// Answers too large for Node to write as a string from its stack go out as their UTF-8 bytes
// (src/http/body-bytes.ts): on both doors they arrive whole, multi-byte characters intact, with the
// Content-Length of the bytes sent (HEAD saying GET's), as small answers do.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LARGEST_STRING_BODY } from '../src/http/body-bytes.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { importExtra, newerAcmeDeployments } from './support/graphql-expect.ts';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const DEPLOYMENTS = 12;
// Two, three and four bytes in UTF-8: a length counted in characters, or an encoding other than UTF-8, shows.
const valueOf = (n: number) => `value of deployment ${n}: ${'é€😀'.repeat(200 + n)}`;

let db: TestDatabase;
let app: RunningApp;
let key: string;
const cipher = newCipher();

beforeAll(async () => {
  db = await createTestDatabase();
  await importFixture(db.orm.em.fork(), cipher);
  const deployments = newerAcmeDeployments(DEPLOYMENTS, (n) => ({ name: `large-${n}`, secrets: [{ name: 'S', value: valueOf(n) }] }));
  await importExtra(db.orm.em, cipher, { deployments });
  key = await issueKey(db.orm.em, [ACME], true);
  app = await startApp(db.orm, cipher);
});
afterAll(async () => {
  await app?.close();
  await cipher.close();
  await db?.drop();
});

const newestFirst = Array.from({ length: DEPLOYMENTS }, (_, i) => DEPLOYMENTS - 1 - i);

/** The answer's bytes are its Content-Length, hold multi-byte characters, and are more than a string write takes. */
function expectWhole(answer: RawResponse): unknown {
  expect(answer.status).toBe(200);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const text = answer.body.toString('utf8');
  // The length the answer's own JSON has in UTF-8 (the client reads as many bytes as Content-Length says).
  expect({ length: Number(answer.headers['content-length']), chunked: answer.headers['transfer-encoding'] })
    .toEqual({ length: Buffer.byteLength(JSON.stringify(JSON.parse(text))), chunked: undefined });
  expect(text.length).toBeGreaterThan(LARGEST_STRING_BODY);
  expect(answer.body.length).toBeGreaterThan(text.length);
  return JSON.parse(text);
}

describe('a large answer', () => {
  it('arrives whole on REST, with the length of its bytes, and HEAD says the same length', async () => {
    const path = `${app.url}/v2/deployments?limit=${DEPLOYMENTS}`;
    const answer = await rawRequest(path, { headers: { 'x-api-key': key } });
    const page = expectWhole(answer) as { resources: { name: string; secrets: unknown }[] };
    expect(page.resources.map((d) => [d.name, d.secrets])).toEqual(newestFirst.map((n) => [`large-${n}`, [{ name: 'S', value: valueOf(n) }]]));
    const head = await rawRequest(path, { method: 'HEAD', headers: { 'x-api-key': key } });
    expect({ status: head.status, type: head.headers['content-type'], length: head.headers['content-length'], body: head.body.length })
      .toEqual({ status: 200, type: 'application/json', length: String(answer.body.length), body: 0 });
    // Compressed for a client that asks, from the same bytes.
    const gzipped = await rawRequest(path, { headers: { 'x-api-key': key, 'accept-encoding': 'gzip' } });
    expect({ encoding: gzipped.headers['content-encoding'], length: Number(gzipped.headers['content-length']) })
      .toEqual({ encoding: 'gzip', length: gzipped.body.length });
    expect(gunzipSync(gzipped.body).equals(answer.body)).toBe(true);
  });

  it('arrives whole on GraphQL, with the length of its bytes, and compressed from the same bytes', async () => {
    const request = (headers: Record<string, string> = {}) => rawRequest(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: `{ deployments(limit: ${DEPLOYMENTS}) { resources { name secrets { name value } } } }` }),
    });
    const answer = await request();
    const gzipped = await request({ 'accept-encoding': 'gzip' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.body).equals(answer.body)).toBe(true);
    const result = expectWhole(answer) as { data: { deployments: { resources: { name: string; secrets: unknown }[] } } };
    expect(result.data.deployments.resources.map((d) => [d.name, d.secrets]))
      .toEqual(newestFirst.map((n) => [`large-${n}`, [{ name: 'S', value: valueOf(n) }]]));
  });
});
