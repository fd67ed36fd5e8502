// Times every GraphQL execution (both doors: REST routes run named operations) and counts the errors in its
// result, and in refused documents, by code. It also names the operation in the request scope, for the access log.
import { getOperationAST, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Metrics } from './metrics.ts';
import { currentRequestScope } from './request-scope.ts';

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
    onExecute({ args }) {
      const operation = getOperationAST(args.document, args.operationName);
      const name = metrics.operationLabel(operation?.name?.value);
      const scope = currentRequestScope();
      if (scope) scope.operation = operation?.name?.value ?? 'anonymous';
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
