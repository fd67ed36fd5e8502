// What an operator sees: one JSON log line per request with its request id (the caller's, or a new one, and
// echoed back), no API key or secret value anywhere in the logs, Prometheus metrics per route and operation,
// and the liveness and readiness probes.
import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessLog, createLogger, yogaLogger } from '../src/observability/logger.ts';
import { Metrics } from '../src/observability/metrics.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
let app: RunningApp;
let metrics: Metrics;
let key: string;
const lines: string[] = [];
const SECRET_VALUES = ['sk_live_fixture_Zq8', 'tenant-two-secret-value'];

beforeAll(async () => {
  db = await createTestDatabase();
  const cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  key = await issueKey(db.orm.em, [ACME], true);
  const destination = new Writable({ write(chunk, _encoding, done) { lines.push(...chunk.toString().split('\n').filter(Boolean)); done(); } });
  metrics = new Metrics();
  metrics.observePool(await db.orm.em.getConnection().getNativeClient());
  app = await startApp(db.orm, cipher, undefined, { options: { logger: createLogger('info', destination), metrics } });
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

/** A log destination that keeps what is written to it. */
const into = (written: string[]) => new Writable({ write(chunk, _encoding, done) { written.push(chunk.toString()); done(); } });
const ACCESS_LINE_ORDER = ['requestId', 'method', 'path', 'route', 'status', 'durationMs', 'operation', 'documentId', 'tenantId', 'aborted'];
const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
const requestLine = (requestId: string) => logged().find((entry) => entry.msg === 'request' && entry.requestId === requestId);

/** Waits until the log has a line `find` accepts (the access log line is written once the response is sent). */
async function waitForLog<T>(find: () => T | undefined): Promise<T | undefined> {
  for (const deadline = Date.now() + 20_000; find() === undefined && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 10));
  return find();
}

async function waitForLine(requestId: string) {
  return waitForLog(() => requestLine(requestId));
}

describe('request ids and access log', () => {
  it("keeps the caller's X-Request-Id, echoes it, and logs the request under it", async () => {
    const response = await fetch(`${app.url}/v2/deployments?limit=2`, { headers: { 'x-api-key': key, 'x-request-id': 'trace-42.a:b' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('trace-42.a:b');
    expect(await waitForLine('trace-42.a:b')).toMatchObject({
      level: 'info', method: 'GET', path: '/v2/deployments?limit=2', route: '/v2/deployments', status: 200,
      operation: 'LegacyListDeployments', tenantId: ACME, durationMs: expect.any(Number),
    });
  });

  it('makes up an id when there is none, or when the given one could forge log lines (newline, too long)', async () => {
    for (const given of [undefined, 'evil\u2028{"level":"error"}', 'x'.repeat(200), 'a b']) {
      const response = await fetch(`${app.url}/graphql`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key, ...(given === undefined ? {} : { 'x-request-id': encodeURIComponent(given) === given ? given : given.replace(/[^\x20-\x7e]/g, '') }) },
        body: JSON.stringify({ query: 'query TenantName { tenant { name } }' }),
      });
      const id = response.headers.get('x-request-id')!;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await waitForLine(id)).toMatchObject({ route: '/graphql', operation: 'TenantName', status: 200 });
    }
  });

  it('writes each access line exactly as pino writes a line of the same fields (log pipelines parse either)', async () => {
    // A GraphQL operation (operation and tenant), a REST path with characters JSON escapes, and a request whose
    // client went away before its body arrived (aborted).
    await app.graphql('query TenantName { tenant { name } }', { 'x-api-key': key, 'x-request-id': 'like-pino-1' });
    await fetch(`${app.url}/v2/deployments?limit=1&name_contains=back\\slash`, { headers: { 'x-api-key': key, 'x-request-id': 'like-pino-2' } });
    // Gone once the server has the request (its headers parsed), not after a guessed moment.
    const arrived = new Promise<void>((resolve) => {
      const onRequest = (request: IncomingMessage) => {
        if (request.headers['x-request-id'] !== 'like-pino-3') return;
        app.app.server.off('request', onRequest);
        resolve();
      };
      app.app.server.on('request', onRequest);
    });
    const socket = net.connect(Number(new URL(app.url).port), '127.0.0.1');
    socket.write('POST /graphql HTTP/1.1\r\nhost: x\r\nx-request-id: like-pino-3\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"query"');
    await arrived;
    socket.destroy();
    for (const id of ['like-pino-1', 'like-pino-2', 'like-pino-3']) {
      const line = (await waitForLog(() => lines.find((text) => text.includes(`"requestId":"${id}"`))))!;
      const { level, time, msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
      expect([level, msg]).toEqual(['info', 'request']);
      // In the order the line has always had them (pino writes an object's keys in its order).
      const ordered = Object.fromEntries(ACCESS_LINE_ORDER.filter((name) => name in fields).map((name) => [name, fields[name]]));
      expect(Object.keys(ordered)).toEqual(Object.keys(fields)); // nothing else in it
      const written: string[] = [];
      createLogger('info', into(written)).info(ordered, msg as string);
      expect(`${line}\n`).toBe(written[0]!.replace(/"time":"[^"]*"/, `"time":"${time as string}"`));
    }
    expect(JSON.parse(lines.find((text) => text.includes('like-pino-3'))!)).toMatchObject({ aborted: true, route: 'unmatched' });
    // A worker's logger carries its number (WORKERS above 1): so does its access line.
    const ours: string[] = [];
    const pinos: string[] = [];
    const fields = { requestId: 'r', method: 'GET', path: '/v2/deployments', route: '/v2/deployments', status: 200, durationMs: 1.5 };
    accessLog(createLogger('info', into(ours)).child({ worker: 2 }))(fields);
    createLogger('info', into(pinos)).child({ worker: 2 }).info(fields, 'request');
    const withoutTime = (text: string) => text.replace(/"time":"[^"]*"/, '');
    expect(withoutTime(ours[0]!)).toBe(withoutTime(pinos[0]!));
    expect(JSON.parse(ours[0]!)).toMatchObject({ worker: 2 });
    expect(JSON.parse(lines.find((text) => text.includes('like-pino-2'))!)).toMatchObject({ path: '/v2/deployments?limit=1&name_contains=back\\slash' });
  });

  it('logs failed requests with their status, and every line is one JSON object', async () => {
    const response = await fetch(`${app.url}/v2/deployments?limit=0`, { headers: { 'x-api-key': key } });
    expect(response.status).toBe(422);
    expect(await waitForLine(response.headers.get('x-request-id')!)).toMatchObject({ status: 422, route: '/v2/deployments' });
    expect(() => logged()).not.toThrow();
  });
});

describe('secrets stay out of the logs', () => {
  it('never writes an API key or a secret value, whether the request succeeds or fails', async () => {
    const secrets = '{ deployments(limit: 100) { resources { secrets { name value } } } }';
    const read = await app.graphql(secrets, { 'x-api-key': key });
    const values = JSON.stringify(read.body);
    for (const value of SECRET_VALUES.slice(0, 1)) expect(values).toContain(value); // the request did read them
    await fetch(`${app.url}/v2/deployments?limit=100`, { headers: { authorization: `Bearer ${key}` } });
    // A client that puts its key in the query string by mistake: the access log shows the path, not the key.
    await fetch(`${app.url}/v2/deployments?limit=abc&api_key=${key}&token=${key}`, { headers: { 'x-api-key': key } });
    await app.graphql(`{ deployments(filter: { nameContains: "${key}" }) { resources { name } } }`, { 'x-api-key': key });
    await app.graphql(`{ deployments(limit: 0, filter: { nameContains: "${key}" }) { resources { name } } }`, { 'x-api-key': key });
    // An unexpected failure, which is logged with its error.
    await db.query('alter table secret rename to secret_away');
    try {
      const failed = await app.graphql(secrets, { 'x-api-key': key });
      expect(failed.body.errors[0].message).toBe('Unexpected error.');
    } finally {
      await db.query('alter table secret_away rename to secret');
    }
    // The failure was logged...
    expect(await waitForLog(() => logged().find((entry) => entry.level === 'error'))).toBeDefined();
    const all = lines.join('\n');
    expect(all).not.toContain(key); // ...but no key, not even inside the logged query string
    expect(all).not.toContain(key.slice(4));
    for (const value of SECRET_VALUES) expect(all).not.toContain(value);
  });

  it('redacts a header map, an API key or a secret value that a log line is given', () => {
    // Nothing the service logs today carries these (a test above searches its whole log); the redaction is what
    // still holds when a future line passes along a request's headers, or an error that carries a key or a value.
    const written: string[] = [];
    const logger = createLogger('info', into(written));
    const [apiKey, secretValue] = [`dmg_${'k'.repeat(32)}`, 'sk_live_in_a_log_call_3Rv'];
    const headers = { 'x-api-key': apiKey, authorization: `Bearer ${apiKey}`, cookie: `session=${apiKey}`, 'user-agent': 'legacy-cli/2.1' };
    logger.warn({ headers }, 'refused');
    logger.error({ req: { method: 'PATCH', url: '/v2/deployments/1', headers } }, 'failed');
    // Yoga's logger (what the service logs an unexpected error through): an error carrying a key and a value.
    yogaLogger(logger).error(Object.assign(new Error('write failed'), { apiKey, secretValue }));
    logger.info({ apiKey, secretValue, input: { name: 'STRIPE_KEY', secretValue } }, 'seen');
    const all = written.join('');
    expect(all).not.toContain(apiKey);
    expect(all).not.toContain(secretValue);
    // Only those: the rest of each line is there.
    expect(written.map((line) => JSON.parse(line))).toMatchObject([
      { headers: { 'x-api-key': '[redacted]', authorization: '[redacted]', cookie: '[redacted]', 'user-agent': 'legacy-cli/2.1' } },
      { req: { method: 'PATCH', headers: { authorization: '[redacted]', 'user-agent': 'legacy-cli/2.1' } } },
      { err: { message: 'write failed', apiKey: '[redacted]', secretValue: '[redacted]' } },
      { apiKey: '[redacted]', input: { name: 'STRIPE_KEY', secretValue: '[redacted]' } },
    ]);
  });

  it('logs of a query string only what names the request: no variables, no document, no unknown parameter\'s value', async () => {
    // Values a client sent in URLs: a secret in the variables of a mutation sent by GET (refused, 405), another
    // as a literal in a mutation's text, a filter's literal in a query's text (served), a value of a parameter
    // no route declares. Each is the same text percent-encoded.
    const [inVariables, inMutation, inQuery, inUnknown] = ['sk_live_by_get_5Tq', 'sk_live_literal_8Wn', 'literal_filter_2Hb', 'unknown_value_4Kd'];
    const byGet = async (parameters: Record<string, string>, requestId: string, status: number) => {
      const response = await fetch(`${app.url}/graphql?${new URLSearchParams(parameters)}`, { headers: { 'x-api-key': key, 'x-request-id': requestId, accept: 'application/json' } });
      expect(response.status).toBe(status);
      return (await waitForLine(requestId))?.path;
    };
    const variables = JSON.stringify({ input: { id: '00000000-0000-4000-8000-000000000001', secrets: [{ name: 'STRIPE_KEY', value: inVariables }] } });
    expect(await byGet({
      query: 'mutation SetSecret($input: UpdateDeploymentInput!) { updateDeployment(input: $input) { __typename } }', variables, operationName: 'SetSecret',
    }, 'get-mutation', 405)).toBe('/graphql?query=[redacted]&variables=[redacted]&operationName=SetSecret');
    expect(await byGet({
      query: `mutation SetInline { updateDeployment(input: { id: "00000000-0000-4000-8000-000000000001", secrets: [{ name: "K", value: "${inMutation}" }] }) { __typename } }`,
      extensions: '{}',
    }, 'get-literal', 405)).toBe('/graphql?query=[redacted]&extensions=[redacted]');
    expect(await byGet({ query: `query ByName { deployments(filter: { nameContains: "${inQuery}" }) { resources { name } } }`, operationName: 'ByName' }, 'get-query', 200))
      .toBe('/graphql?query=[redacted]&operationName=ByName');
    expect(await requestLine('get-query')).toMatchObject({ operation: 'ByName' });
    // REST: the parameters the route declares are the request's filters and page, and are kept; another's value is not.
    const rest = await fetch(`${app.url}/v2/deployments?limit=1&debug=${inUnknown}&name_contains=api&status`, { headers: { 'x-api-key': key, 'x-request-id': 'rest-unknown' } });
    expect(rest.status).toBe(200);
    expect((await waitForLine('rest-unknown'))?.path).toBe('/v2/deployments?limit=1&debug=[redacted]&name_contains=api&status');
    // A path no route serves declares nothing: every value is left out.
    await fetch(`${app.url}/v2/nowhere?q=${inUnknown}`, { headers: { 'x-request-id': 'rest-nowhere' } });
    expect((await waitForLine('rest-nowhere'))?.path).toBe('/v2/nowhere?q=[redacted]');
    const all = lines.join('\n');
    for (const value of [inVariables, inMutation, inQuery, inUnknown]) expect(all).not.toContain(value);
  });
});

describe('object URLs in the logs', () => {
  it('logs an upload under its route, and never the signature of its URL, which is its permission', async () => {
    const now = Date.now();
    const url = await app.sourceArchives.store.uploadUrl('sources/t/d/logged.tar.gz', { issuedAt: new Date(now), expiresAt: new Date(now + 60_000), maxBytes: 1000 });
    const signature = new URL(url).searchParams.get('signature')!;
    const response = await fetch(url, { method: 'PUT', body: 'archive', headers: { 'x-request-id': 'upload-1' } });
    expect(response.status).toBe(200);
    const line = await waitForLine('upload-1');
    expect(line).toMatchObject({ method: 'PUT', route: '/objects/{object_path}', status: 200 });
    expect(line!.path).toContain('signature=[redacted]');
    expect(lines.join('\n')).not.toContain(signature);
  });
});

describe('metrics', () => {
  it('counts requests per route template and status, and times GraphQL operations by name', async () => {
    await fetch(`${app.url}/v2/deployments?limit=1`, { headers: { 'x-api-key': key } });
    await fetch(`${app.url}/v1/integrations/codehost/not-a-uuid/repos`, { headers: { 'x-api-key': key } });
    await app.graphql('query DashboardPage { deployments(limit: 1) { resources { name } } }', { 'x-api-key': key });
    await app.graphql('{ deployments(limit: 0) { resources { name } } }', { 'x-api-key': key });
    await app.graphql('query TooDeep { deployments { resources { revisions { deployment { revisions { deployment { revisions { deployment { revisions { deployment { name } } } } } } } } } } }', { 'x-api-key': key });
    const response = await fetch(`${app.url}/metrics`);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toMatch(/http_requests_total\{route="\/v2\/deployments",method="GET",status="200"\} [1-9]/);
    // The template, not the raw path: ids never become label values.
    expect(text).toMatch(/http_requests_total\{route="\/v1\/integrations\/codehost\/\{integration_id\}\/repos",method="GET",status="422"\} 1/);
    expect(text).not.toContain('not-a-uuid');
    expect(text).toMatch(/graphql_operation_duration_seconds_count\{operation="DashboardPage",type="query"\} 1/);
    expect(text).toMatch(/graphql_operation_duration_seconds_count\{operation="LegacyListDeployments",type="query"\} [1-9]/);
    expect(text).toMatch(/graphql_errors_total\{operation="anonymous",code="BAD_USER_INPUT"\} [1-9]/);
    expect(text).toMatch(/graphql_errors_total\{operation="TooDeep",code="QUERY_TOO_COMPLEX"\} 1/);
    expect(text).toMatch(/db_pool_connections\{state="total"\} \d+/);
    expect(text).toMatch(/process_resident_memory_bytes \d+/);
  });

  it('caps operation names: a client inventing names cannot add series without bound', async () => {
    const capped = new Metrics();
    const labels = new Set(Array.from({ length: 500 }, (_, i) => capped.operationLabel(`Op${i}`)));
    expect(labels.size).toBe(201);
    expect(labels.has('other')).toBe(true);
    expect(capped.operationLabel('not a name; drop table')).toBe('other');
  });
});

describe('probes', () => {
  it('/health answers while the process serves requests, on its exact path only', async () => {
    const health = await fetch(`${app.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    // Nothing else that merely ends in "/health" is taken for the probe.
    const page = await fetch(`${app.url}/v2/deployments?limit=1&name_contains=/health`, { headers: { 'x-api-key': key } });
    expect(await page.json()).toEqual({ resources: [], offset: 0 });
    expect((await fetch(`${app.url}/v1/health`)).status).toBe(404);
  });

  it('/ready checks the database and the migrations', async () => {
    const response = await fetch(`${app.url}/ready`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', secretsKey: 'ok' } });
  });

  it('/ready reports 503 once shutdown has begun', async () => {
    app.app.inFlight.draining = true;
    try {
      const response = await fetch(`${app.url}/ready`);
      expect(response.status).toBe(503);
      expect((await response.json()).checks.shutdown).toBe('in progress');
    } finally {
      app.app.inFlight.draining = false;
    }
  });
});
