// The node:http adapter, the outer layer. Per request it: opens the request scope (request id, taken from
// X-Request-Id or made up, and echoed back), refuses bodies over the limit with 413 before anything buffers
// them, counts the request as in flight (graceful shutdown waits on that), hands the operation runner a digest
// of what it serves (runner/operation-runner.ts) and Yoga, with the same scope, what it declines, and, once the
// response is done, writes the access log line and the HTTP metrics.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { accessLog, type Logger } from '../observability/logger.ts';
import { GRAPHQL_NAMING_PARAMETERS, loggablePath } from '../observability/loggable-path.ts';
import type { Metrics } from '../observability/metrics.ts';
import { requestIdFrom, runInRequestScope, type RequestScope } from '../observability/request-scope.ts';
import type { InFlightRequests } from './in-flight-requests.ts';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { Tracing } from '../observability/tracing.ts';
import type { OperationRunner } from '../runner/operation-runner.ts';
import type { Answer } from '../runner/answer.ts';
import { NodeRequestHeaders } from './node-request-headers.ts';
import { writeAtEndOfTurn } from './writes-at-end-of-turn.ts';
import { bodyBytes } from './body-bytes.ts';

type NodeListener = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * Requests served before their body is read, and not as API requests (no key, no JSON body limit): the built-in
 * object store's signed URLs (modules/storage/embedded-object-requests.ts), the registry's token server
 * (modules/registry/token-requests.ts).
 */
export interface ObjectRequests {
  /** The route in logs and metrics. */
  readonly route: string;
  owns(url: string): boolean;
  /** How long the request may take to arrive, when not the usual bound (an upload's bytes). */
  deadlineOf(method: string | undefined): number | undefined;
  serve(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** How long a request may take to arrive after its headers (slowloris; Node's requestTimeout is the server's only, so it is kept here). */
export const REQUEST_DEADLINE_MS = 30_000;
/** Yoga's node listener, given the request's scope as its server context (its plugins read it there). */
type YogaListener = (req: IncomingMessage, res: ServerResponse, serverContext: { scope: RequestScope }) => unknown;

export interface RequestHandlerOptions {
  yoga: YogaListener;
  logger: Logger;
  metrics: Metrics;
  maxBodyBytes: number;
  graphqlEndpoint: string;
  inFlight: InFlightRequests;
  /** When tracing is on: a span per request, continuing the caller's `traceparent`. */
  tracing?: Tracing;
  /** Serves what it accepts of the requests; none: Yoga serves everything (the reference the tests compare it with). */
  runner?: OperationRunner;
  /** The object store's URLs, when the service serves them itself, and the registry's token server: the first that owns a request serves it. */
  objects?: ObjectRequests | readonly (ObjectRequests | undefined)[];
  /** How long a request may take to arrive after its headers; default REQUEST_DEADLINE_MS. */
  requestDeadlineMs?: number;
}

const TOO_LARGE = Symbol('too large');

/**
 * TOO_LARGE for a body over `limit` bytes; a chunked body within it is returned, read, and so is one of a
 * declared length when `whole` (the operation runner needs it).
 */
function readBody(req: IncomingMessage, limit: number, whole = false): Promise<Buffer | typeof TOO_LARGE | undefined> {
  const declared = req.headers['content-length'];
  // A declared length is enforced by Node's parser, so the header alone decides; Yoga reads the body itself
  // (unless the operation runner needs it whole).
  if (declared !== undefined && Number(declared) > limit) return Promise.resolve(TOO_LARGE);
  if (declared !== undefined ? !whole : req.headers['transfer-encoding'] === undefined) return Promise.resolve(undefined);
  // Chunked: the size is known only by reading, so it is read here (and handed to Yoga).
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks, size)));
    req.once('error', reject);
  });
}

/** As Node answers a request that did not arrive within its requestTimeout: 408, and the connection closed. */
function timedOut(req: IncomingMessage, res: ServerResponse): void {
  if (res.headersSent) {
    req.socket.destroy();
    return;
  }
  res.writeHead(408, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify({ detail: 'Request Timeout' }));
}

function tooLarge(res: ServerResponse, limit: number, graphql: boolean): void {
  const message = `Request body is larger than the limit of ${limit} bytes`;
  const body = graphql ? { errors: [{ message: `${message}.`, extensions: { code: 'PAYLOAD_TOO_LARGE' } }] } : { detail: message };
  // The rest of the body is not read: the connection cannot be reused.
  res.writeHead(413, { 'content-type': graphql ? 'application/graphql-response+json; charset=utf-8' : 'application/json', connection: 'close' });
  res.end(JSON.stringify(body));
}

/** The answer, written with the other answers of this turn: one wake-up of the clients for all of them. */
function writeAnswer(res: ServerResponse, { status, statusText, headers, body }: Answer): Promise<void> {
  return writeAtEndOfTurn(() => {
    res.writeHead(status, statusText, headers);
    if (body === null) res.end();
    else res.end(typeof body === 'string' ? bodyBytes(body) : body);
  });
}

export function createRequestHandler(options: RequestHandlerOptions): NodeListener {
  const { yoga, logger, metrics, maxBodyBytes, graphqlEndpoint, inFlight, tracing, runner } = options;
  const logRequest = accessLog(logger);
  const outside = [options.objects].flat().filter((owner) => owner !== undefined);
  const graphqlByGet = `${graphqlEndpoint}?`;
  return (req, res) => {
    const scope: RequestScope = { requestId: requestIdFrom(req.headers['x-request-id']), clientAddress: req.socket.remoteAddress };
    const started = performance.now();
    res.setHeader('x-request-id', scope.requestId);
    // Once draining, every answer tells keep-alive clients to reconnect (to another replica).
    if (inFlight.draining) res.setHeader('connection', 'close');
    inFlight.begin();
    const objects = outside.find((owner) => owner.owns(req.url ?? '/'));
    // The whole request must have arrived by then (a GET without a body has, with its headers).
    const deadline = setTimeout(() => {
      if (!req.complete) timedOut(req, res);
    }, objects?.deadlineOf(req.method) ?? options.requestDeadlineMs ?? REQUEST_DEADLINE_MS);
    deadline.unref();

    const span = tracing && requestSpan(tracing, req);
    const finish = () => {
      if (scope.ended) return;
      // An operation still waiting for its turn finds it so, and does nothing.
      scope.ended = true;
      clearTimeout(deadline);
      if (span) endRequestSpan(span, req.method ?? 'GET', res.statusCode, scope.route, !res.writableFinished);
      inFlight.end();
      const seconds = (performance.now() - started) / 1000;
      const route = scope.route ?? 'unmatched';
      const method = req.method ?? 'GET';
      metrics.httpRequests.inc({ route, method, status: String(res.statusCode) });
      if (res.statusCode === 429) metrics.rateLimited.inc();
      metrics.httpDuration.observe({ route, method }, seconds);
      // Of a query string, only what names the request: a GraphQL request's operation and document id, a REST
      // route's declared parameters (observability/loggable-path.ts).
      const shown = req.url?.startsWith(graphqlByGet) ? GRAPHQL_NAMING_PARAMETERS : scope.queryParameters;
      logRequest({
        requestId: scope.requestId, method, path: loggablePath(req.url, shown), route, status: res.statusCode,
        durationMs: Math.round(seconds * 10_000) / 10, operation: scope.operation, documentId: scope.documentId, tenantId: scope.tenantId,
        aborted: !res.writableFinished,
      });
    };
    res.once('finish', finish);
    res.once('close', finish);

    // Yoga answers its own errors; this is only what escapes it, which must not take the process down.
    const failedOutsideYoga = (error: unknown) => {
      logger.error({ err: error }, 'request failed outside Yoga');
      res.destroy();
    };
    const serve = async () => {
      if (objects) {
        scope.route = objects.route;
        return objects.serve(req, res);
      }
      const method = req.method ?? 'GET';
      const url = req.url ?? '/';
      const headers = new NodeRequestHeaders(req.headers);
      const door = runner?.doorOf(method, url, headers);
      let body: Buffer | typeof TOO_LARGE | undefined;
      try {
        body = await readBody(req, maxBodyBytes, door !== undefined);
      } catch {
        res.destroy();
        return;
      }
      if (body === TOO_LARGE) return tooLarge(res, maxBodyBytes, url.split('?')[0] === graphqlEndpoint);
      if (door) {
        const answer = await runner!.answer(door, { method, url, headers, body }, scope);
        if (scope.ended) return;
        if (answer) return writeAnswer(res, answer);
      }
      // Yoga takes an already read body from `req.body` (@whatwg-node/server).
      if (body) (req as IncomingMessage & { body?: Buffer }).body = body;
      return yoga(req, res, { scope });
    };
    const serveInScope = () => runInRequestScope(scope, () => serve().catch(failedOutsideYoga));
    // Everything the request starts (its GraphQL operation, its SQL statements) is a child of its span.
    if (span) context.with(trace.setSpan(context.active(), span), serveInScope);
    else serveInScope();
  };
}

function requestSpan(tracing: Tracing, req: IncomingMessage): Span {
  const method = req.method ?? 'GET';
  const path = (req.url ?? '/').split('?')[0]!;
  return tracing.tracer.startSpan(`${method} ${path}`, {
    kind: SpanKind.SERVER,
    // Only what says which request it was: never a header (keys) or the query string (it may hold a key).
    attributes: { 'http.request.method': method, 'url.path': path },
  }, tracing.extract(req.headers));
}

function endRequestSpan(span: Span, method: string, status: number, route: string | undefined, aborted: boolean): void {
  span.setAttribute('http.response.status_code', status);
  // Named by its route once known (`GET /v2/deployments/{deployment_id}`), not by a path holding an id.
  if (route) {
    span.setAttribute('http.route', route);
    span.updateName(`${method} ${route}`);
  }
  if (status >= 500 || aborted) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
