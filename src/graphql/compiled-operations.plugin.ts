// Operations run compiled by graphql-jit: each operation of a document is compiled once, the first time it
// runs, and kept with the document (as long as Yoga's parse cache keeps it).
//
// One compiled query per operation, not per document: a document may hold several operations and name the one
// to run (GraphiQL sends its whole editor). @envelop/graphql-jit, used before, kept one per document, whichever
// operation compiled it first, so a request naming the document's second operation got the first operation's
// answer (test/graphql-over-http.test.ts, "a document with several operations").
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { DocumentNode, ExecutionArgs, ExecutionResult } from 'graphql';
import { makeExecute, type Plugin } from 'graphql-yoga';

export type CompiledOperation = Pick<CompiledQuery, 'query'>;

export class CompiledOperations {
  readonly #byDocument = new WeakMap<DocumentNode, Map<string, CompiledOperation>>();

  /** Documents that run on graphql-js instead (their operations are not compiled). */
  readonly runsInterpreted: (document: DocumentNode) => boolean;

  constructor(runsInterpreted: (document: DocumentNode) => boolean) {
    this.runsInterpreted = runsInterpreted;
  }

  /** The compiled operation; Yoga has already refused a missing or unknown name where the document needs one. */
  of(args: Pick<ExecutionArgs, 'schema' | 'document' | 'operationName'>): CompiledOperation {
    let operations = this.#byDocument.get(args.document);
    if (!operations) this.#byDocument.set(args.document, (operations = new Map()));
    const name = args.operationName ?? '';
    let operation = operations.get(name);
    if (!operation) {
      const result = compileQuery(args.schema, args.document, args.operationName ?? undefined);
      // What graphql-jit cannot compile is answered with its errors, as @envelop/graphql-jit did.
      operation = isCompiledQuery(result) ? result : { query: () => result as ExecutionResult };
      operations.set(name, operation);
    }
    return operation;
  }
}

/**
 * Queries and mutations run compiled. Subscriptions run on graphql-js: graphql-jit 0.8's compiled subscribe hands
 * the subscription field's resolver the operation's variables as its arguments, so a literal argument
 * (`revisionUpdated(deploymentId: "…")`, `deploymentUpdated(filter: {…})`) never reached it
 * (test/live-update-arguments.test.ts).
 */
export function useCompiledOperations(operations: CompiledOperations): Plugin {
  const execute = makeExecute((args: ExecutionArgs) => operations.of(args).query(args.rootValue, args.contextValue, args.variableValues));
  return {
    onExecute({ args, setExecuteFn }) {
      if (!operations.runsInterpreted(args.document)) setExecuteFn(execute);
    },
  };
}
