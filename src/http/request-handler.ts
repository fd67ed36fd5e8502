// The Node request listener in front of Yoga. Per request it: opens the request scope (request id, taken
// from X-Request-Id or made up, and echoed back), refuses bodies over the limit with 413 before Yoga buffers
// them, counts the request as in flight (graceful shutdown waits on that), has a REST read wait for its turn
// among the operations at once before Yoga makes anything for it (turns at the door), and, once the response
// is done, writes the access log line and the HTTP metrics.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { accessLog, type Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { requestIdFrom, runInRequestScope, type RequestScope } from '../observability/request-scope.ts';
import type { InFlightRequests } from './in-flight-requests.ts';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { Tracing } from '../observability/tracing.ts';
import type { PlainGraphQLRequests } from './plain-graphql-requests.ts';
import type { OperationsAtOnce } from '../limits/operations-at-once.ts';
import { NodeRequestHeaders } from './node-request-headers.ts';

type NodeListener = (req: IncomingMessage, res: ServerResponse) => unknown;

export interface RequestHandlerOptions {
  yoga: NodeListener;
  logger: Logger;
  metrics: Metrics;
  maxBodyBytes: number;
  graphqlEndpoint: string;
  inFlight: InFlightRequests;
  /** When tracing is on: a span per request, continuing the caller's `traceparent`. */
  tracing?: Tracing;
  /** Serves `POST /graphql` with a JSON body without Yoga's Fetch API adapter; none: Yoga serves everything. */
  plainGraphQL?: PlainGraphQLRequests;
  /** Requests that take their turn among the operations at once before Yoga serves them; none: all go straight in. */
  turnsAtTheDoor?: TurnsAtTheDoor;
}

/**
 * A request that waits a long time for its turn keeps what it has made meanwhile long enough for V8 to move it
 * to the old generation, and whatever it makes later and hangs off those objects (its page, its answer) is moved
 * there too: at 64 connections, a REST page's answer was promoted at every scavenge
 * (docs/performance.md#the-turn-taken-before-yoga-2026-11-26). So a REST read waits at the door, before Yoga
 * makes its Request, its promises and its route's envelop: with the request scope and node:http's own objects
 * only. The caller is authenticated first (a refused one is answered at once, as before), and its route runs in
 * the turn reserved here; a request that ends without running one (another answer, a client gone) gives the
 * turn back as it ends.
 */
export interface TurnsAtTheDoor {
  admits(req: IncomingMessage): boolean;
  /** As the route would authenticate the caller (the outcome is kept in the request scope); rejects a refused one. */
  authenticate(headers: NodeRequestHeaders): Promise<void>;
  operations: OperationsAtOnce;
}

const TOO_LARGE = Symbol('too large');

/**
 * TOO_LARGE for a body over `limit` bytes; a chunked body within it is returned, read, and so is one of a
 * declared length when `whole` (the plain GraphQL request needs it).
 */
function readBody(req: IncomingMessage, limit: number, whole = false): Promise<Buffer | typeof TOO_LARGE | undefined> {
  const declared = req.headers['content-length'];
  // A declared length is enforced by Node's parser, so the header alone decides; Yoga reads the body itself
  // (unless the plain GraphQL request path needs it whole).
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

function tooLarge(res: ServerResponse, limit: number, graphql: boolean): void {
  const message = `Request body is larger than the limit of ${limit} bytes`;
  const body = graphql ? { errors: [{ message: `${message}.`, extensions: { code: 'PAYLOAD_TOO_LARGE' } }] } : { detail: message };
  // The rest of the body is not read: the connection cannot be reused.
  res.writeHead(413, { 'content-type': graphql ? 'application/graphql-response+json; charset=utf-8' : 'application/json', connection: 'close' });
  res.end(JSON.stringify(body));
}

// Query parameters that look like credentials (a client putting its key in the URL by mistake) are not logged.
const CREDENTIAL_PARAMETER = /^(api[-_]?key|key|token|access[-_]?token|password|secret|authorization)$/i;

function loggablePath(url: string | undefined): string | undefined {
  if (!url?.includes('?')) return url;
  const [path, query] = [url.slice(0, url.indexOf('?')), new URLSearchParams(url.slice(url.indexOf('?') + 1))];
  let redacted = false;
  for (const name of new Set(query.keys())) {
    if (CREDENTIAL_PARAMETER.test(name)) {
      query.set(name, '[redacted]');
      redacted = true;
    }
  }
  return redacted ? `${path}?${query.toString()}` : url;
}

export function createRequestHandler(options: RequestHandlerOptions): NodeListener {
  const { yoga, logger, metrics, maxBodyBytes, graphqlEndpoint, inFlight, tracing, plainGraphQL, turnsAtTheDoor } = options;
  const logRequest = accessLog(logger);
  return (req, res) => {
    const scope: RequestScope = { requestId: requestIdFrom(req.headers['x-request-id']), clientAddress: req.socket.remoteAddress };
    const started = performance.now();
    res.setHeader('x-request-id', scope.requestId);
    // Once draining, every answer tells keep-alive clients to reconnect (to another replica).
    if (inFlight.draining) res.setHeader('connection', 'close');
    inFlight.begin();

    const span = tracing && requestSpan(tracing, req);
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      // A turn reserved at the door and not used (or not yet granted) goes back.
      scope.turn?.then((turn) => turn.release(), () => {});
      if (span) endRequestSpan(span, req.method ?? 'GET', res.statusCode, scope.route, !res.writableFinished);
      inFlight.end();
      const seconds = (performance.now() - started) / 1000;
      const route = scope.route ?? 'unmatched';
      const method = req.method ?? 'GET';
      metrics.httpRequests.inc({ route, method, status: String(res.statusCode) });
      if (res.statusCode === 429) metrics.rateLimited.inc();
      metrics.httpDuration.observe({ route, method }, seconds);
      logRequest({
        requestId: scope.requestId, method, path: loggablePath(req.url), route, status: res.statusCode,
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
    const enterYoga = () => {
      const plainMediaType = plainGraphQL?.mayServe(req);
      readBody(req, maxBodyBytes, plainMediaType !== undefined).then(
        async (body) => {
          const isGraphQL = (req.url ?? '').split('?')[0] === graphqlEndpoint;
          if (body === TOO_LARGE) return tooLarge(res, maxBodyBytes, isGraphQL);
          if (plainMediaType !== undefined && body && await plainGraphQL!.serve(req, res, body, plainMediaType)) return;
          // Yoga takes an already read body from `req.body` (@whatwg-node/server).
          if (body) (req as IncomingMessage & { body?: Buffer }).body = body;
          return yoga(req, res);
        },
        () => res.destroy(),
      ).catch(failedOutsideYoga);
    };
    const waitAtTheDoor = async (door: TurnsAtTheDoor) => {
      const admitted = await door.authenticate(new NodeRequestHeaders(req.headers)).then(() => true, () => false);
      // Gone meanwhile: nothing to serve, and no turn to take. (Checked right before the reservation, which
      // `finish` gives back if the request ends later.)
      if (finished) return;
      if (admitted) {
        scope.turn = door.operations.reserve();
        // The turn, or the end of the wait: then the route answers 503, as a wait for a connection is answered.
        await scope.turn.catch(() => {});
        if (finished) return;
      }
      enterYoga();
    };
    const serve = () => runInRequestScope(scope, () => {
      if (turnsAtTheDoor?.admits(req)) {
        waitAtTheDoor(turnsAtTheDoor).catch(failedOutsideYoga);
      } else {
        enterYoga();
      }
    });
    // Everything the request starts (its GraphQL operation, its SQL statements) is a child of its span.
    if (span) context.with(trace.setSpan(context.active(), span), serve);
    else serve();
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
