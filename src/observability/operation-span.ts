// The span of one GraphQL operation the operation runner executes: the span @envelop/opentelemetry makes for an
// operation Yoga executes (observability/operation-spans.plugin.ts), with the same name, kind, attributes and
// error event, under the request's span. test/tracing.test.ts sends the same requests both ways and compares
// the spans.
import { getDocumentString } from '@envelop/core';
import { BREAK, print, visit, type DocumentNode, type ExecutionResult, type OperationDefinitionNode } from 'graphql';
import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';

/** A document with a literal value in it may hold data: it is left out of the span (@envelop/opentelemetry's rule). */
function hasInlineArgument(document: DocumentNode): boolean {
  let seen = false;
  const leave = () => {
    seen = true;
    return BREAK;
  };
  visit(document, { StringValue: { leave }, BooleanValue: { leave }, FloatValue: { leave }, EnumValue: { leave }, IntValue: { leave } });
  return seen;
}

/** Runs `execute` in the span of `operation` (none where the document names no operation it has). */
export async function inOperationSpan(
  tracer: Tracer, document: DocumentNode, operation: OperationDefinitionNode | null | undefined, execute: () => ExecutionResult | Promise<ExecutionResult>,
): Promise<ExecutionResult> {
  if (!operation) return execute();
  const name = operation.name?.value || 'anonymous';
  const span = tracer.startSpan(`${operation.operation}.${name}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      'graphql.execute.operationName': name,
      'graphql.execute.operationType': operation.operation,
      'graphql.execute.document': hasInlineArgument(document) ? undefined : getDocumentString(document, print),
    },
  });
  try {
    const result = await context.with(trace.setSpan(context.active(), span), execute);
    if (result.errors?.length) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.recordException({ name: 'graphql.execute.error', message: JSON.stringify(result.errors) });
    }
    return result;
  } finally {
    span.end();
  }
}
