// A span per GraphQL operation, of either door (REST routes run their operations through the same envelop),
// with @envelop/opentelemetry. Configured for what may leave the process: no per-resolver spans (a page of 100
// records would make thousands), no variables, no result, and the document only when it has no inline
// arguments (then it holds no literal values). Imported only when tracing starts (observability/tracing.ts):
// the plugin loads an OpenTelemetry SDK of its own.
import type { Plugin } from '@envelop/core';
import { SpanKind, type TracerProvider } from '@opentelemetry/api';

// Plugin<any>: its context type carries a symbol of its own, which our context does not declare.
export async function loadOperationSpans(provider: TracerProvider): Promise<Plugin<any>> {
  const { useOpenTelemetry } = await import('@envelop/opentelemetry');
  return useOpenTelemetry(
    { resolvers: false, variables: false, result: false, document: true },
    // Our provider (SDK 2.x); the plugin's own types name the 1.x SDK it depends on. It calls getTracer only.
    provider as Parameters<typeof useOpenTelemetry>[1],
    SpanKind.INTERNAL,
    {},
    'deployments-gateway',
  );
}
