// Compressed answers, as a client on a slow network meets them: on both doors, each coding it asks for
// (gzip, br, zstd) decodes to exactly the bytes it would get uncompressed; small answers, and answers to
// clients that do not ask, are sent as they always were; the static assets and HEAD stay as they were; the
// bytes before and after compression are counted for the operator.
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlSelectionFor } from '../src/modules/common/legacy-json.ts';
import { deploymentRecordSchema } from '../src/modules/deployments/deployment-record.schema.ts';
import { Metrics } from '../src/observability/metrics.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const MIN_BYTES = 1024; // the default threshold (COMPRESSION_MIN_BYTES)

let db: TestDatabase;
let app: RunningApp;
let uncompressingApp: RunningApp;
let metrics: Metrics;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  key = await issueKey(db.orm.em, [ACME], true);
  metrics = new Metrics();
  app = await startApp(db.orm, cipher, undefined, { options: { metrics } });
  // The same service with compression off (COMPRESSION=false): what every client got before it existed.
  uncompressingApp = await startApp(db.orm, cipher, undefined, { options: { compression: false } });
});
afterAll(async () => {
  await app?.close();
  await uncompressingApp?.close();
  await db?.drop();
});

const decoders: Record<string, (body: Buffer) => Buffer> = {
  gzip: (body) => zlib.gunzipSync(body),
  br: (body) => zlib.brotliDecompressSync(body),
  zstd: (body) => zlib.zstdDecompressSync(body),
};

// Every field of the legacy record: the GraphQL twin of the REST page (as the benchmark asks for it).
const PAGE_QUERY = `{ deployments(limit: 100) { resources ${graphqlSelectionFor(deploymentRecordSchema, { id: 'uuid' }).replace(/\b[a-z0-9_]+: /g, '')} } }`;

/** One request of each door that answers with more than MIN_BYTES. */
const doors = {
  REST: (base: string, headers: Record<string, string> = {}) =>
    rawRequest(`${base}/v2/deployments?limit=100`, { headers: { 'x-api-key': key, ...headers } }),
  GraphQL: (base: string, headers: Record<string, string> = {}) =>
    rawRequest(`${base}/graphql`, {
      method: 'POST', body: JSON.stringify({ query: PAGE_QUERY }),
      headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    }),
};

/** The headers that differ between any two answers (the time, the request id), left out. */
const lasting = ({ date: _date, 'x-request-id': _id, ...headers }: RawResponse['headers']) => headers;

describe.each(Object.entries(doors))('the %s door', (_door, send) => {
  it.each(['gzip', 'br', 'zstd'])('answers Accept-Encoding: %s with a smaller body that decodes to exactly the uncompressed one', async (encoding) => {
    const plain = await send(app.url);
    expect(plain.status).toBe(200);
    expect(plain.body.length).toBeGreaterThan(MIN_BYTES);
    const compressed = await send(app.url, { 'accept-encoding': encoding });
    expect(compressed.status).toBe(200);
    expect(compressed.headers['content-encoding']).toBe(encoding);
    expect(compressed.headers.vary).toMatch(/accept-encoding/i);
    expect(Number(compressed.headers['content-length'])).toBe(compressed.body.length);
    expect(decoders[encoding]!(compressed.body).equals(plain.body)).toBe(true);
    expect(compressed.body.length).toBeLessThan(plain.body.length);
  });

  it('answers a client that sends no Accept-Encoding exactly as the service without compression does', async () => {
    const [answer, before] = [await send(app.url), await send(uncompressingApp.url)];
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect({ status: answer.status, headers: lasting(answer.headers) }).toEqual({ status: before.status, headers: lasting(before.headers) });
    expect(answer.body.equals(before.body)).toBe(true);
  });

  it.each(['identity', 'deflate', 'gzip;q=0, br;q=0, zstd;q=0'])('sends the body uncompressed to Accept-Encoding: %s, which accepts none of its codings', async (acceptEncoding) => {
    const [answer, plain] = [await send(app.url, { 'accept-encoding': acceptEncoding }), await send(app.url)];
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.vary).toMatch(/accept-encoding/i);
    expect(answer.body.equals(plain.body)).toBe(true);
  });
});

describe('choosing the coding', () => {
  it.each([
    ['gzip, deflate, br, zstd', 'zstd'], // what a current browser sends: equal weights, the service's preference
    ['gzip, br;q=0.5', 'gzip'], // the client's weights first
    ['br;q=0.8, gzip;q=0.1', 'br'],
    ['*', 'zstd'],
    ['zstd;q=0, *', 'br'],
    ['GZIP', 'gzip'], // codings are case-insensitive
  ])('answers Accept-Encoding: %s with %s', async (acceptEncoding, chosen) => {
    const answer = await doors.REST(app.url, { 'accept-encoding': acceptEncoding });
    expect(answer.headers['content-encoding']).toBe(chosen);
  });
});

describe('what stays uncompressed', () => {
  it('sends answers smaller than the threshold as they are, on both doors', async () => {
    const graphql = await rawRequest(`${app.url}/graphql`, {
      method: 'POST', body: '{"query":"{ __typename }"}', headers: { 'x-api-key': key, 'content-type': 'application/json', 'accept-encoding': 'gzip, br, zstd' },
    });
    expect({ encoding: graphql.headers['content-encoding'], vary: graphql.headers.vary, body: graphql.body.toString() })
      .toEqual({ encoding: undefined, vary: 'Accept-Encoding', body: '{"data":{"__typename":"Query"}}' });
    const rest = await rawRequest(`${app.url}/v2/deployments`, { headers: { 'accept-encoding': 'gzip, br, zstd' } });
    expect({ status: rest.status, encoding: rest.headers['content-encoding'], body: JSON.parse(rest.body.toString()) })
      .toEqual({ status: 401, encoding: undefined, body: { detail: expect.any(String) } });
  });

  it('answers a client with an absurdly long Accept-Encoding uncompressed (negotiating it would cost milliseconds)', async () => {
    const page = await rawRequest(`${app.url}/v2/deployments?limit=100`, { headers: { 'x-api-key': key, 'accept-encoding': `${'x;q=0.5, '.repeat(40)}gzip` } });
    expect(page.status).toBe(200);
    expect(page.body.length).toBeGreaterThan(MIN_BYTES);
    expect(page.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(page.body.toString()).resources.length).toBeGreaterThan(0);
  });

  it('answers HEAD without a body and without Content-Encoding, like before', async () => {
    const head = await rawRequest(`${app.url}/v2/deployments?limit=100`, { method: 'HEAD', headers: { 'x-api-key': key, 'accept-encoding': 'gzip, br, zstd' } });
    const before = await rawRequest(`${uncompressingApp.url}/v2/deployments?limit=100`, { method: 'HEAD', headers: { 'x-api-key': key, 'accept-encoding': 'gzip, br, zstd' } });
    expect({ status: head.status, body: head.body.length, encoding: head.headers['content-encoding'] }).toEqual({ status: 200, body: 0, encoding: undefined });
    // The tag names the coding the GET would be sent in: it differs from the uncompressing service's.
    const { vary, etag, ...rest } = lasting(head.headers);
    const { etag: identityEtag, vary: varyBefore, ...restBefore } = lasting(before.headers);
    expect(vary).toBe('Authorization, X-Api-Key, X-Tenant-Id, Accept, Accept-Encoding');
    expect(varyBefore).toBe(vary);
    expect(etag).not.toBe(identityEtag);
    expect(rest).toEqual(restBefore);
  });

  it("serves GraphiQL's scripts and stylesheet as they are, with their length, to GET and HEAD", async () => {
    const page = await rawRequest(`${app.url}/graphql`, { headers: { accept: 'text/html' } });
    const assets = [...page.body.toString().matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      const [answer, plain] = [await rawRequest(`${app.url}${asset}`, { headers: { 'accept-encoding': 'gzip, br, zstd' } }), await rawRequest(`${app.url}${asset}`)];
      expect({ status: answer.status, encoding: answer.headers['content-encoding'], vary: answer.headers.vary }, asset).toEqual({ status: 200, encoding: undefined, vary: undefined });
      expect(Number(answer.headers['content-length']), asset).toBe(plain.body.length);
      expect(answer.body.equals(plain.body), asset).toBe(true);
      const head = await rawRequest(`${app.url}${asset}`, { method: 'HEAD', headers: { 'accept-encoding': 'gzip, br, zstd' } });
      expect({ status: head.status, length: Number(head.headers['content-length']), body: head.body.length }, asset).toEqual({ status: 200, length: plain.body.length, body: 0 });
    }
  });
});

describe('for the operator', () => {
  const counted = async (name: string, encoding: string) =>
    (await metrics.registry.getSingleMetric(name)!.get()).values.find((v) => v.labels.encoding === encoding)?.value ?? 0;

  it('counts the bytes of compressed bodies before and after compression, by coding', async () => {
    const plain = await doors.REST(app.url);
    const [before, after] = [await counted('http_response_bytes_before_compression_total', 'br'), await counted('http_response_bytes_after_compression_total', 'br')];
    const compressed = await doors.REST(app.url, { 'accept-encoding': 'br' });
    expect(await counted('http_response_bytes_before_compression_total', 'br') - before).toBe(plain.body.length);
    expect(await counted('http_response_bytes_after_compression_total', 'br') - after).toBe(compressed.body.length);
  });

  it('serves /metrics compressed to a scraper that asks (Prometheus sends Accept-Encoding: gzip)', async () => {
    const scrape = await rawRequest(`${app.url}/metrics`, { headers: { 'accept-encoding': 'gzip' } });
    expect(scrape.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(scrape.body).toString()).toMatch(/^http_response_bytes_after_compression_total\{encoding="br"\} \d+$/m);
  });
});
