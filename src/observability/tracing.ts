// OpenTelemetry tracing: a span for each HTTP request (http/request-handler.ts), for each GraphQL operation of
// either door (@envelop/opentelemetry, in app.ts) and for each SQL statement (the ORM's query log, db/
// orm-config.ts), nested in that order and continuing the caller's trace when it sends a W3C `traceparent`.
// Exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set. Otherwise off, and free: the SDK is not
// even loaded (it is imported here only when tracing starts), and no hook is installed anywhere.
//
// What spans carry, on purpose: method, path without its query string (it may hold a key by mistake), status,
// the operation's name and type, its document only when it has no inline arguments (@envelop/opentelemetry's
// rule; variables are never recorded), and SQL text with placeholders, never parameter values (they hold
// tenants' data, and ciphertexts). No header is recorded, so neither API keys nor cookies are.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Context, type Tracer, type TracerProvider } from '@opentelemetry/api';
import type { Plugin } from '@envelop/core';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { loadOperationSpans } from './operation-spans.plugin.ts';

export interface TracingOptions {
  serviceName: string;
  /** The cluster worker (1..N), when WORKERS > 1. */
  workerId?: number;
  /** Tests: spans go here, one by one, instead of to the OTLP endpoint in batches. */
  exporter?: SpanExporter;
}

export interface Tracing {
  tracer: Tracer;
  provider: TracerProvider;
  /** The envelop plugin that makes each GraphQL operation's span (app.ts installs it after graphql-jit). */
  operationSpans: Plugin<any>;
  /** Continues a caller's trace: the context of its `traceparent` header (or the root context). */
  extract(headers: Record<string, string | string[] | undefined>): Context;
  /** Flushes what is buffered and stops (graceful shutdown). */
  shutdown(): Promise<void>;
}

export const TRACER_NAME = 'deployments-gateway';

export async function startTracing(options: TracingOptions): Promise<Tracing> {
  const [{ BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor }, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, { resourceFromAttributes }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-base'), import('@opentelemetry/context-async-hooks'), import('@opentelemetry/core'), import('@opentelemetry/resources'),
    ]);
  // The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT (and _HEADERS, _TIMEOUT) itself, as every OTel SDK does.
  const processor = options.exporter
    ? new SimpleSpanProcessor(options.exporter)
    : new BatchSpanProcessor(new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter());
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': options.serviceName,
      ...(options.workerId !== undefined && { 'service.instance.id': `worker-${options.workerId}` }),
    }),
    spanProcessors: [processor],
  });
  // Spans started in a request's callbacks (Yoga's, the resolvers', the ORM's) find their parent through it.
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const propagator = new W3CTraceContextPropagator();
  propagation.setGlobalPropagator(propagator);
  trace.setGlobalTracerProvider(provider);
  return {
    tracer: provider.getTracer(TRACER_NAME),
    provider,
    operationSpans: await loadOperationSpans(provider),
    extract: (headers) => propagator.extract(context.active(), headers, {
      get: (carrier, key) => carrier[key],
      keys: (carrier) => Object.keys(carrier),
    }),
    async shutdown() {
      await provider.shutdown();
      contextManager.disable();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** The ORM's statement hook (db/orm-config.ts `onStatement`): a span for each statement, under the active span. */
export const statementSpans = (tracing: Tracing) => (sql: string, tookMs: number, failed: boolean) =>
  recordStatement(tracing.tracer, sql, tookMs, failed);

/** The span of one SQL statement that ran for `tookMs` and has just ended, under the active span. */
function recordStatement(tracer: Tracer, sql: string, tookMs: number, failed: boolean): void {
  const end = Date.now();
  const verb = /^\s*\(?\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
  const span = tracer.startSpan(verb, {
    kind: SpanKind.CLIENT,
    startTime: end - tookMs,
    attributes: { 'db.system.name': 'postgresql', 'db.query.text': sql },
  });
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end(end);
}
