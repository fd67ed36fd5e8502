// Prepared operations: how the plain GraphQL request (http/plain-graphql-requests.ts) runs a document the
// envelop has already parsed and validated once. Parsing, validation and the limits that judge a document alone
// (depth, aliases, directives, tokens, introspection) give the same verdict every time, so their verdict is
// remembered with the parsed document, by the envelop's own plugins, the first time the document runs; graphql-jit
// compiles each operation once (compiled-operations.plugin.ts). What depends on the request runs every time,
// through the same functions the plugins call, in the order the envelop calls them: authentication and the rate
// limit, the operation metrics, the cost (it depends on the variables), the turn among operations at once, the
// context, the compiled execution, and Yoga's masking of unexpected errors. The context alone comes later than
// the envelop makes it: in the turn, so that a request waiting for one makes nothing its page will hang off
// (limits/operations-at-once.ts); nothing before it reads the context. Driving the envelop's hooks for that
// cost a `{ __typename }` about a fifth of its CPU (docs/performance.md#prepared-operations).
//
// A client, the metrics and the log must not tell the two apart: test/plain-graphql-requests.test.ts sends its
// corpus twice, to a service with this path and to one where Yoga serves everything. The envelop still runs a
// document's first request, whatever it refuses, subscriptions, documents graphql-jit does not run (variables
// with default values), and every request where tracing or read replicas are on (their plugins wrap execution).
import {
  getOperationAST, type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode,
} from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import type { CompiledOperations } from './compiled-operations.plugin.ts';
import type { GraphQLContext } from './context.ts';
import type { QueryCostLimit } from '../limits/query-cost.plugin.ts';
import { executeInTurn, type OperationsAtOnce } from '../limits/operations-at-once.ts';
import type { Metrics } from '../observability/metrics.ts';
import { beginOperationMetrics } from '../observability/operation-metrics.plugin.ts';
import type { CallerRequest } from '../http/node-request-headers.ts';

/** Documents remembered: as many as Yoga's parse cache keeps by default. */
const MAX_DOCUMENTS = 1000;

/** The documents the envelop has validated, by their text: the oldest remembered is forgotten first. */
export class ValidatedDocuments {
  readonly #documents = new Map<string, DocumentNode>();

  get(text: string): DocumentNode | undefined {
    return this.#documents.get(text);
  }

  /** Last among the plugins: remembers each document that the validation (every rule of every plugin) passes. */
  plugin(): Plugin {
    return {
      onValidate: ({ context, params }) => {
        // The text Yoga parsed: a trusted document's, where the request named one by id.
        const text = (context as { params?: GraphQLParams }).params?.query;
        if (typeof text !== 'string') return undefined;
        return ({ valid }) => {
          if (!valid || this.#documents.has(text)) return;
          if (this.#documents.size >= MAX_DOCUMENTS) this.#documents.delete(this.#documents.keys().next().value!);
          this.#documents.set(text, params.documentAST);
        };
      },
    };
  }
}

export interface PreparedOperation {
  document: DocumentNode;
  operationName: string | undefined;
  /** The operation the name picks in the document, resolved once for the request. */
  operation: OperationDefinitionNode;
}

export interface PreparedOperationsOptions {
  schema: GraphQLSchema;
  documents: ValidatedDocuments;
  compiled: CompiledOperations;
  /**
   * Authenticates the request and spends its budget, as the onParams plugin does: nothing where that took no
   * wait, else a promise, which rejects a refused one.
   */
  authenticate: (request: CallerRequest) => Promise<void> | undefined;
  createContext: (request: CallerRequest) => Promise<GraphQLContext>;
  metrics: Metrics;
  queryCost: QueryCostLimit;
  operationsAtOnce: OperationsAtOnce;
  /** Yoga's masking of an unexpected error (app.ts's maskedErrors), the original to the log. */
  maskError: (error: unknown) => Error;
}

export class PreparedOperations {
  readonly #options: PreparedOperationsOptions;

  constructor(options: PreparedOperationsOptions) {
    this.#options = options;
  }

  /** The query this text and operation name run, once the envelop has validated the text; else undefined. */
  find(text: string, operationName: string | null | undefined): PreparedOperation | undefined {
    const document = this.#options.documents.get(text);
    if (!document || this.#options.compiled.runsInterpreted(document)) return undefined;
    // An unknown or missing operation name is refused by Yoga, and only queries are prepared.
    const operation = getOperationAST(document, operationName);
    if (operation?.operation !== 'query') return undefined;
    return { document, operationName: operationName ?? undefined, operation };
  }

  /** Authenticates the request (rejecting where that refuses it), then runs the operation as the envelop would. */
  async run({ document, operationName, operation }: PreparedOperation, request: CallerRequest, variables: Record<string, unknown> | undefined): Promise<ExecutionResult> {
    const { schema, metrics, queryCost, operationsAtOnce, maskError } = this.#options;
    const authenticating = this.#options.authenticate(request);
    if (authenticating) await authenticating;
    // Compiled once the caller is known, like everything else the request costs.
    const compiled = this.#options.compiled.of({ schema, document, operationName });
    const done = beginOperationMetrics(metrics, operation);
    metrics.preparedOperations.inc();
    const refusal = queryCost.refusalOf({ schema, document, variableValues: variables, operationName });
    if (refusal) {
      // The envelop stops there: the metrics count the refusal, which is not masked.
      done(refusal);
      return refusal;
    }
    let result: ExecutionResult;
    try {
      // The context is made in the operation's turn, as a REST route's is (limits/operations-at-once.ts).
      result = await executeInTurn(operationsAtOnce, async () => {
        const context = await this.#options.createContext(request);
        return compiled.query(undefined, context, variables) as ExecutionResult | Promise<ExecutionResult>;
      });
    } catch (error) {
      // Thrown out of execution (not a resolver's error, which is in the result): Yoga answers it masked, and
      // the envelop ends no metrics for it.
      return { errors: [maskError(error) as GraphQLError] };
    }
    done(result);
    return result.errors == null ? result : { ...result, errors: result.errors.map((error) => maskError(error) as GraphQLError) };
  }
}
