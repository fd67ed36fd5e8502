// The steps every operation takes once its caller is known and its document found, whichever door it came by
// (a GraphQL request, a trusted document, a REST route), in this order: the operation's metrics begin (and
// name it for the access log), its cost is judged (it depends on the variables), it waits for its turn among
// the operations at once, its context is made in that turn, it executes (compiled by graphql-jit, or on
// graphql-js for what graphql-jit cannot run) in its span when tracing is on and again on the primary when a
// replica failed it, its metrics end with its result, and unexpected errors are masked. Yoga's plugins call
// the same functions, in the same order, for what the runner declines (app.ts).
// A REST write route's operation (runWrite) takes the same steps but the cost (its answer's document is a fixed
// one of ours, by ids): in its context, before the execution and outside of it, its write runs once; the answer's
// document then reads what it left, on the primary.
import { execute, Kind, type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Tracer } from '@opentelemetry/api';
import type { CompiledOperations } from '../graphql/compiled-operations.plugin.ts';
import { createGraphQLContext, readFromPrimary, useTransaction, type AppServices, type GraphQLContext } from '../graphql/context.ts';
import type { RunnableOperation } from '../graphql/operation-documents.ts';
import { withReplicaFallback } from '../graphql/replica-fallback.plugin.ts';
import { executeInTurn, type OperationsAtOnce } from '../limits/operations-at-once.ts';
import type { QueryCostLimit } from '../limits/query-cost.plugin.ts';
import type { Metrics } from '../observability/metrics.ts';
import { beginOperationMetrics } from '../observability/operation-metrics.plugin.ts';
import { inOperationSpan } from '../observability/operation-span.ts';
import type { RequestScope } from '../observability/request-scope.ts';
import { NO_SINGLE_TENANT, type Principal } from '../modules/tenancy/authenticate.ts';
import { deploymentVersion, tenantDataVersions } from '../modules/tenancy/data-version/tenant-data-version.ts';
import { NOT_MODIFIED } from '../graphql/not-modified.ts';
import { KEY_ANSWERED, type KeyedWrite } from '../modules/idempotency/keyed-write.ts';
import type { Revalidation } from './entity-tags.ts';

export interface OperationSteps {
  schema: GraphQLSchema;
  services: AppServices;
  compiled: CompiledOperations;
  metrics: Metrics;
  queryCost: QueryCostLimit;
  operationsAtOnce: OperationsAtOnce;
  /** Yoga's masking of an unexpected error (app.ts's maskedErrors), telling the log of the original. */
  maskError: (error: unknown) => Error;
  /** When tracing is on: each operation's span. */
  tracer?: Tracer;
}

/** What a request whose client has gone while it waited for its turn gets: nobody reads it. */
const GONE: ExecutionResult = { errors: [] };

/**
 * What a request adds to its operation: for a read, what its entity tag is made of; for a write under an
 * Idempotency-Key, the keyed write that runs it in the key's transaction (modules/idempotency/keyed-write.ts).
 */
export interface RunExtras {
  revalidation?: Revalidation;
  keyed?: KeyedWrite<unknown>;
}

/**
 * Runs `operation` for `principal` through every step after the document's; its result, errors masked. A read
 * whose If-None-Match names its tag (`extras.revalidation`) does not execute: its result is NOT_MODIFIED.
 */
export async function runOperation(
  steps: OperationSteps, scope: RequestScope, principal: Principal, operation: RunnableOperation, variables: Record<string, unknown> | undefined,
  extras: RunExtras = {},
): Promise<ExecutionResult> {
  const { schema, metrics, queryCost } = steps;
  const { document, operationName } = operation;
  const done = beginOperationMetrics(metrics, scope, operation.operation);
  metrics.runnerOperations.inc();
  const refusal = queryCost.refusalOf({ schema, document, variableValues: variables, operationName });
  if (refusal) {
    // Refused before execution: the metrics count the refusal, which is not masked.
    done(refusal);
    return refusal;
  }
  return inTurnMeasured(steps, scope, document, operation.operation, done, extras.keyed, () => executeWithContext(steps, principal, operation, variables, extras));
}

/**
 * A write that comes before the operation answering it (a REST write route's: rest/rest-router.ts, runRouteWrite),
 * given the operation's context: what the answer's document is run with, or the result that answers instead (a
 * refusal's, an error's, or that of a write whose answer reads nothing).
 */
export type WriteFirst = (context: GraphQLContext) => Promise<{ variables: Record<string, unknown> | undefined } | { result: ExecutionResult }>;

export interface WriteOperation {
  /** The name metrics, the access log and traces know the write by (a mutation of that name). */
  name: string;
  write: WriteFirst;
  /** The query of what the write left that answers it; none for a write whose answer reads nothing. */
  answer: RunnableOperation | undefined;
}

/**
 * Runs a write and its answer for `principal` through the steps of runOperation but the cost: in the operation's
 * turn and context (under an Idempotency-Key, in the key's transaction, `keyed`) the write runs once, then, on
 * the primary, the answer's document (again on the primary if a replica failed it: never the write).
 */
export async function runWrite(steps: OperationSteps, scope: RequestScope, principal: Principal, operation: WriteOperation, keyed?: KeyedWrite<unknown>): Promise<ExecutionResult> {
  const named = namedMutation(operation.name);
  const done = beginOperationMetrics(steps.metrics, scope, named);
  steps.metrics.runnerOperations.inc();
  const document = operation.answer?.document ?? { kind: Kind.DOCUMENT, definitions: [named] };
  return inTurnMeasured(steps, scope, document, named, done, keyed, () => writeWithContext(steps, principal, operation, keyed));
}

/** A mutation that selects nothing, as the name and type of a write in metrics, logs and traces. */
const namedMutation = (name: string): OperationDefinitionNode =>
  ({ kind: Kind.OPERATION_DEFINITION, operation: 'mutation' as OperationDefinitionNode['operation'], name: { kind: Kind.NAME, value: name }, selectionSet: { kind: Kind.SELECTION_SET, selections: [] } });

/** The operation's turn, in its span when tracing is on; its metrics end with its result, which is masked. */
async function inTurnMeasured(
  steps: OperationSteps, scope: RequestScope, document: DocumentNode, operation: OperationDefinitionNode | null | undefined, done: (result: ExecutionResult) => void,
  keyed: KeyedWrite<unknown> | undefined, run: () => ExecutionResult | Promise<ExecutionResult>,
): Promise<ExecutionResult> {
  const { maskError, tracer } = steps;
  const inTurn = () => executeInTurn(steps.operationsAtOnce, () => (scope.ended ? GONE : run()));
  let result: ExecutionResult;
  try {
    result = await (tracer ? inOperationSpan(tracer, document, operation, inTurn) : inTurn());
  } catch (error) {
    // Thrown out of execution (not a resolver's error, which is in the result): answered masked, and no
    // metrics end for it, as Yoga does.
    return { errors: [maskError(error) as GraphQLError] };
  }
  // Not run: the client went, or the key's record answered (keyed.outcome).
  if (result === GONE || result === KEY_ANSWERED) return result;
  done(result);
  // A keyed write's result was masked in its transaction, where its answer was made of it.
  return keyed ? result : masked(steps, result);
}

const masked = ({ maskError }: OperationSteps, result: ExecutionResult): ExecutionResult =>
  (result.errors == null ? result : { ...result, errors: result.errors.map((error) => maskError(error) as GraphQLError) });

/**
 * The context, made in the turn, and the execution (again on the primary if a replica failed it); under an
 * Idempotency-Key, in the key's transaction, whose stored answer is made of the masked result.
 */
function executeWithContext(
  steps: OperationSteps, principal: Principal, operation: RunnableOperation, variables: Record<string, unknown> | undefined, extras: RunExtras,
): ExecutionResult | Promise<ExecutionResult> {
  if (extras.keyed) {
    return extras.keyed.run(async (transaction) => {
      const context = await createGraphQLContext(principal, steps.services);
      useTransaction(context, transaction);
      return masked(steps, await executeIn(steps, context, operation, variables, undefined));
    });
  }
  const context = createGraphQLContext(principal, steps.services);
  if (context instanceof Promise) return context.then((made) => executeIn(steps, made, operation, variables, extras.revalidation));
  return executeIn(steps, context, operation, variables, extras.revalidation);
}

/**
 * The context, made in the turn, the write in it, and its answer, on the primary; under an Idempotency-Key, in
 * the key's transaction, whose stored answer is made of the masked result.
 */
async function writeWithContext(steps: OperationSteps, principal: Principal, { write, answer }: WriteOperation, keyed: KeyedWrite<unknown> | undefined): Promise<ExecutionResult> {
  const run = async (context: GraphQLContext) => {
    const wrote = await write(context);
    if ('result' in wrote) return wrote.result;
    readFromPrimary(context);
    return executeIn(steps, context, answer!, wrote.variables, undefined);
  };
  if (keyed) {
    return keyed.run(async (transaction) => {
      const context = await createGraphQLContext(principal, steps.services);
      useTransaction(context, transaction);
      return masked(steps, await run(context));
    });
  }
  return run(await createGraphQLContext(principal, steps.services));
}

function executeIn(
  steps: OperationSteps, context: GraphQLContext, operation: RunnableOperation, variables: Record<string, unknown> | undefined, revalidation: Revalidation | undefined,
): ExecutionResult | Promise<ExecutionResult> {
  // A data-plane key acting for several tenants reads nothing, and its answers get no tag.
  const run = revalidation && context.principal.tenantId !== NO_SINGLE_TENANT
    ? () => executeRevalidated(steps, operation, context, variables, revalidation)
    : () => executeCompiled(steps, operation, context, variables);
  const { replicas } = steps.services;
  return replicas ? withReplicaFallback(replicas, context, run) : run();
}

/**
 * The tenant's data version first, then (unless the request holds the tag it makes) the operation, on the same
 * database: the tag is never newer than the data. A result with errors gets no tag: an error may not last.
 */
async function executeRevalidated(
  steps: OperationSteps, operation: RunnableOperation, context: GraphQLContext, variables: Record<string, unknown> | undefined, revalidation: Revalidation,
): Promise<ExecutionResult> {
  const { principal } = context;
  const secretsKeys = principal.mayReadSecrets ? context.cipher.fingerprints : [];
  if (revalidation.deploymentId !== undefined) {
    // One deployment's representation: its own version, read first as the tenant's would be (none: a 404 follows).
    const version = await deploymentVersion(context.em(), principal.tenantId, revalidation.deploymentId);
    if (version !== undefined && revalidation.tagDeployment(principal, version, secretsKeys)) return NOT_MODIFIED;
  } else {
    const versions = await tenantDataVersions(context.em(), principal.tenantId);
    if (revalidation.tag(principal, operation.document, versions, secretsKeys)) return NOT_MODIFIED;
  }
  const result = await executeCompiled(steps, operation, context, variables);
  if (result.errors?.length) revalidation.etag = undefined;
  return result;
}

function executeCompiled(steps: OperationSteps, { document, operationName }: RunnableOperation, contextValue: object, variableValues: Record<string, unknown> | undefined): ExecutionResult | Promise<ExecutionResult> {
  const { schema, compiled } = steps;
  // graphql-jit 0.8 rejects an omitted `$x: Int! = 0`, which graphql-js accepts (graphql/variable-defaults.ts).
  if (compiled.runsInterpreted(document)) return execute({ schema, document, contextValue, variableValues, operationName }) as ExecutionResult | Promise<ExecutionResult>;
  return compiled.of({ schema, document, operationName }).query(undefined, contextValue, variableValues) as ExecutionResult | Promise<ExecutionResult>;
}
