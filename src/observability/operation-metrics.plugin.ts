// Times every GraphQL execution (both doors: REST routes run named operations) and counts the errors in its
// result, and in refused documents, by code. It also names the operation in the request scope, for the access log.
// The operation runner calls beginOperationMetrics itself; the plugin is Yoga's side of it.
// A subscription is not timed (its stream lasts as long as the client wants); its refusal and the errors of
// its events are counted.
import { getOperationAST, type ExecutionResult, type OperationDefinitionNode } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { Metrics } from './metrics.ts';
import { scopeOfServerContext, type RequestScope } from './request-scope.ts';

/** The operation's metric label; its name goes into the request scope (the access log's `operation`). */
function nameOperation(metrics: Metrics, scope: RequestScope, operation: OperationDefinitionNode | null | undefined): string {
  scope.operation = operation?.name?.value ?? 'anonymous';
  return metrics.operationLabel(operation?.name?.value);
}

/**
 * Starts an execution's metrics: names the operation, starts its timer. The function it returns ends them with
 * the execution's result, before its errors are masked: it stops the timer and counts the errors by code.
 */
export function beginOperationMetrics(metrics: Metrics, scope: RequestScope, operation: OperationDefinitionNode | null | undefined): (result: ExecutionResult) => void {
  const name = nameOperation(metrics, scope, operation);
  const stopTimer = metrics.graphqlOperations.startTimer({ operation: name, type: operation?.operation ?? 'unknown' });
  return (result) => {
    stopTimer();
    for (const error of result.errors ?? []) {
      metrics.graphqlErrors.inc({ operation: name, code: String(error.extensions?.code ?? 'INTERNAL_SERVER_ERROR') });
    }
  };
}

export function useOperationMetrics(metrics: Metrics): Plugin {
  return {
    // Documents refused before execution (limits, unknown fields) count as errors of their operation too.
    onValidate({ params }) {
      return ({ valid, result }) => {
        if (valid) return;
        const operation = metrics.operationLabel(getOperationAST(params.documentAST)?.name?.value);
        for (const error of result) metrics.graphqlErrors.inc({ operation, code: String(error.extensions?.code ?? 'GRAPHQL_VALIDATION_FAILED') });
      };
    },
    onSubscribe({ args }) {
      const name = nameOperation(metrics, scopeOfServerContext(args.contextValue as object), getOperationAST(args.document, args.operationName));
      const countErrors = (result: ExecutionResult) => {
        for (const error of result.errors ?? []) metrics.graphqlErrors.inc({ operation: name, code: String(error.extensions?.code ?? 'INTERNAL_SERVER_ERROR') });
      };
      return {
        onSubscribeResult: ({ result }) => {
          if (!isAsyncIterable(result)) return countErrors(result);
          return { onNext: ({ result: event }) => countErrors(event) };
        },
      };
    },
    onExecute({ args }) {
      const done = beginOperationMetrics(metrics, scopeOfServerContext(args.contextValue as object), getOperationAST(args.document, args.operationName));
      return {
        onExecuteDone({ result }) {
          done(result as ExecutionResult);
        },
      };
    },
  };
}
