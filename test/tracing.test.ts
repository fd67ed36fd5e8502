// OpenTelemetry spans, collected with the SDK's in-memory exporter: HTTP request → GraphQL operation → SQL
// statements, nested, on both doors; a caller's `traceparent` continued; nothing secret in any span; the same
// spans for a GraphQL request the operation runner serves (src/runner) as when Yoga serves it.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTracing, statementSpans, type Tracing } from '../src/observability/tracing.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import { startService } from './support/service-process.ts';
import { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let db: TestDatabase;
let cipher: SecretCipher;
let app: RunningApp;
let key: string;

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';
const PAGE = 'query Page { deployments(limit: 5) { resources { uuid name secrets { name value } } } }';

beforeAll(async () => {
  tracing = await startTracing({ serviceName: 'tracing-test', exporter });
  db = await createTestDatabase({ onStatement: statementSpans(tracing) });
  cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  key = await issueKey(db.orm.em, [ACME], true);
  app = await startApp(db.orm, cipher, undefined, { options: { tracing } });
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
  await tracing?.shutdown();
});

beforeEach(() => exporter.reset());

/** The finished spans once the request's own span (ended after the response is written) is among them. */
async function spansOf(requestSpanName: string): Promise<ReadableSpan[]> {
  for (let i = 0; i < 100 && !exporter.getFinishedSpans().some((s) => s.name === requestSpanName); i++) await new Promise((r) => setTimeout(r, 10));
  return exporter.getFinishedSpans();
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const childrenOf = (spans: ReadableSpan[], parent: ReadableSpan) => spans.filter((s) => parentOf(s) === parent.spanContext().spanId);

/**
 * The spans of one request as trees, with what a trace viewer shows (names, kinds, attributes, status, events,
 * nesting, whether it continues the caller's trace), without what differs between any two requests (ids,
 * times, stack traces); siblings in one order.
 */
function traceShape(spans: ReadableSpan[]): unknown[] {
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const inOrder = (nodes: unknown[]) => nodes.toSorted((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  const node = (span: ReadableSpan): unknown => ({
    name: span.name,
    kind: span.kind,
    attributes: span.attributes,
    status: span.status,
    events: span.events.map(({ name, attributes = {} }) => {
      const { 'exception.stacktrace': _stack, ...shown } = attributes;
      return { name, attributes: shown };
    }),
    inCallersTrace: span.spanContext().traceId === TRACE_ID,
    children: inOrder(childrenOf(spans, span).map(node)),
  });
  return inOrder(spans.filter((span) => !ids.has(parentOf(span) ?? '')).map(node));
}

describe('tracing', () => {
  it('nests a GraphQL request: HTTP span, its operation, the operation\'s SQL statements, in the caller\'s trace', async () => {
    const { status } = await app.graphql(PAGE, { 'x-api-key': key, traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01` });
    expect(status).toBe(200);
    const spans = await spansOf('POST /graphql');
    const http = spans.find((s) => s.name === 'POST /graphql')!;
    expect(http.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(http)).toBe(CALLER_SPAN_ID);
    expect(http.attributes).toMatchObject({ 'http.request.method': 'POST', 'url.path': '/graphql', 'http.response.status_code': 200 });
    // Under the request: its operation, and the statements that ran before it (reading the API key, once).
    const operation = childrenOf(spans, http).find((s) => s.name === 'query.Page');
    expect(operation).toBeDefined();
    for (const other of childrenOf(spans, http).filter((s) => s !== operation)) {
      expect(String(other.attributes['db.query.text'])).toMatch(/from "?api_key"?/);
    }
    const statements = childrenOf(spans, operation!);
    // The page, then its secrets and secret references together: one span each, with placeholders, no values.
    expect(statements.length).toBeGreaterThanOrEqual(2);
    for (const statement of statements) {
      expect(statement.name).toBe('SELECT');
      expect(statement.attributes['db.system.name']).toBe('postgresql');
      expect(String(statement.attributes['db.query.text'])).toMatch(/^\s*select /i);
      expect(statement.spanContext().traceId).toBe(TRACE_ID);
    }
    expect(statements.some((s) => /from "?secret"?/.test(String(s.attributes['db.query.text'])))).toBe(true);
  });

  it('nests a REST request the same way, its span named by the route', async () => {
    const response = await fetch(`${app.url}/v2/deployments?limit=5`, { headers: { 'x-api-key': key } });
    expect(response.status).toBe(200);
    const spans = await spansOf('GET /v2/deployments');
    const http = spans.find((s) => s.name === 'GET /v2/deployments')!;
    expect(parentOf(http)).toBeUndefined(); // no traceparent: a trace of its own
    const operation = childrenOf(spans, http).find((s) => s.name === 'query.LegacyListDeployments');
    expect(operation).toBeDefined();
    expect(childrenOf(spans, operation!).length).toBeGreaterThanOrEqual(2);
  });

  it('puts no API key, secret value, header or literal argument in any span', async () => {
    const { body } = await app.graphql(
      '{ deployments(limit: 5, filter: { nameContains: "literal-needle" }) { resources { name secrets { name value } } } }',
      { 'x-api-key': key, authorization: `Bearer ${key}`, cookie: 'session=cookie-needle' },
    );
    await app.graphql(`query WithVariables($name: String) { deployments(limit: 5, filter: { nameContains: $name }) { resources { name } } }`,
      { 'x-api-key': key }, { name: 'variable-needle' });
    await fetch(`${app.url}/v2/deployments?limit=5&api_key=${key}`, { headers: { 'x-api-key': key } });
    const values = (await app.graphql(PAGE, { 'x-api-key': key })).body.data.deployments.resources
      .flatMap((d: { secrets: { value: string }[] }) => d.secrets.map((s) => s.value));
    expect(values.length).toBeGreaterThan(0);
    expect(body.errors).toBeUndefined();
    await spansOf('POST /graphql');
    const recorded = JSON.stringify(exporter.getFinishedSpans().map((s) => ({ name: s.name, attributes: s.attributes, events: s.events })));
    expect(recorded).toContain('db.query.text'); // the spans are there
    for (const needle of [key, ...values, 'literal-needle', 'variable-needle', 'cookie-needle', ACME]) expect(recorded).not.toContain(needle);
  });

  it('records the same spans for a plain GraphQL request as Yoga does for the same request', async () => {
    const yoga = await startApp(db.orm, cipher, undefined, { options: { tracing, runner: false } });
    const requests: Array<{ name: string; body: Record<string, unknown>; headers?: Record<string, string> }> = [
      { name: 'a page with secrets', body: { query: PAGE } },
      { name: 'variables, in the caller\'s trace', body: { query: 'query One($limit: Int!) { deployments(limit: $limit) { resources { uuid } } }', variables: { limit: 1 } },
        headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01` } },
      { name: 'a syntax error', body: { query: '{ deployments(' } },
      { name: 'an unknown field', body: { query: '{ nope }' } },
      { name: 'a variable of the wrong type', body: { query: 'query One($limit: Int!) { deployments(limit: $limit) { resources { uuid } } }', variables: { limit: 'one' } } },
      { name: 'another tenant', body: { query: '{ tenant { name } }' }, headers: { 'x-tenant-id': '00000000-0000-4000-8000-000000000000' } },
      { name: 'a wrong key', body: { query: '{ __typename }' }, headers: { 'x-api-key': 'dmk_not-a-key-of-this-service' } },
    ];
    const traced = async (target: RunningApp, { body, headers }: (typeof requests)[number]) => {
      exporter.reset();
      const response = await fetch(`${target.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', 'x-api-key': key, ...headers },
        body: JSON.stringify(body),
      });
      await response.arrayBuffer();
      return traceShape(await spansOf('POST /graphql'));
    };
    try {
      for (const request of requests) {
        const [fromPlain, fromYoga] = [await traced(app, request), await traced(yoga, request)];
        expect(fromYoga.length, `${request.name}: a trace`).toBe(1);
        expect(fromPlain, request.name).toEqual(fromYoga);
      }
    } finally {
      await yoga.close();
    }
  });

  it('records nothing for an app and a database opened without tracing', async () => {
    const plainDb = await createTestDatabase();
    const cipher = newCipher();
    await importFixture(plainDb.orm.em.fork(), cipher);
    const plainKey = await issueKey(plainDb.orm.em, [ACME]);
    const plain = await startApp(plainDb.orm, cipher);
    try {
      exporter.reset();
      expect((await plain.graphql(PAGE, { 'x-api-key': plainKey })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
      expect(exporter.getFinishedSpans()).toEqual([]);
    } finally {
      await plain.close();
      await plainDb.drop();
    }
  });
});

describe('the service with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('exports its spans over OTLP/HTTP, and flushes them when it stops', async () => {
    const received: { path: string; type: string; body: Buffer }[] = [];
    const collector = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ path: req.url ?? '', type: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const secretsKey = randomBytes(32);
    const serviceDb = await createTestDatabase();
    await importFixture(serviceDb.orm.em.fork(), new SecretCipher(secretsKey));
    const serviceKey = await issueKey(serviceDb.orm.em, [ACME]);
    const service = await startService({
      DATABASE_URL: serviceDb.url, SECRETS_KEY: secretsKey.toString('base64'), OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'otlp-test',
    });
    try {
      const response = await fetch(service.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': serviceKey, traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01` },
        body: JSON.stringify({ query: PAGE }),
      });
      expect(response.status).toBe(200);
    } finally {
      expect(await service.stop()).toBe(0);
      await new Promise((resolve) => collector.close(resolve));
      await serviceDb.drop();
    }
    // Batched: nothing may have left before the stop; the stop must have flushed the request's spans.
    const exported = received.filter((r) => r.path === '/v1/traces');
    expect(exported.length).toBeGreaterThan(0);
    const body = Buffer.concat(exported.map((r) => r.body));
    const hasTrace = body.includes(TRACE_ID) || body.includes(Buffer.from(TRACE_ID, 'hex'));
    expect(hasTrace).toBe(true);
    expect(body.includes('otlp-test')).toBe(true);
    expect(body.includes('query.Page')).toBe(true);
    expect(body.includes(serviceKey)).toBe(false);
  }, 60_000);
});
