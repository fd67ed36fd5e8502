// Times every GraphQL execution (both doors: REST routes run named operations) and counts the errors in its
// result, and in refused documents, by code. It also names the operation in the request scope, for the access log.
// A subscription is not timed (its stream lasts as long as the client wants); its refusal and the errors of
// its events are counted.
import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { Metrics } from './metrics.ts';
import { currentRequestScope } from './request-scope.ts';

export function useOperationMetrics(metrics: Metrics): Plugin {
  /** The operation's metric label; its name goes into the request scope. */
  const nameOperation = (document: DocumentNode, operationName: string | null | undefined) => {
    const operation = getOperationAST(document, operationName);
    const scope = currentRequestScope();
    if (scope) scope.operation = operation?.name?.value ?? 'anonymous';
    return metrics.operationLabel(operation?.name?.value);
  };
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
      const name = nameOperation(args.document, args.operationName);
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
      const operation = getOperationAST(args.document, args.operationName);
      const name = nameOperation(args.document, args.operationName);
      const stopTimer = metrics.graphqlOperations.startTimer({ operation: name, type: operation?.operation ?? 'unknown' });
      return {
        onExecuteDone({ result }) {
          stopTimer();
          for (const error of (result as ExecutionResult).errors ?? []) {
            metrics.graphqlErrors.inc({ operation: name, code: String(error.extensions?.code ?? 'INTERNAL_SERVER_ERROR') });
          }
        },
      };
    },
  };
}
