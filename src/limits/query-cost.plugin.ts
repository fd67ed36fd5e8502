// The cost of an operation as the number of fields it can resolve: a field costs 1, and a field that returns
// many costs their number times what is selected inside it: the page size it asks for (limit, first, last,
// a list of ids; graphql-query-complexity applies variables and argument defaults), or an assumed length
// for lists without a page argument.
// graphql-armor's cost rule judges shape only (and multiplies by first/last only when written as literals),
// so a page of 100 would cost the same as a page of 1 when the size comes in a variable.
import {
  getNullableType, getOperationAST, getVariableValues, GraphQLError, isListType, visit, type DocumentNode, type ExecutionResult,
  type GraphQLCompositeType, type GraphQLField, type GraphQLSchema,
} from 'graphql';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import type { Plugin } from 'graphql-yoga';
import { MAX_PAGE_SIZE } from '../graphql/paging.ts';
import { MAX_LOG_PAGE } from '../modules/revisions/lifecycle/revision-logs.graphql.ts';

/** A connection asked for without `first` or `last` returns this many (deployment-list.graphql.ts). */
const DEFAULT_PAGE_SIZE = 20;
/**
 * Lists without a page argument are assumed to be this long (their realistic upper range), so that walking a
 * cycle (repositories → integration → repositories → …) multiplies as the result would. The items of a page
 * (`resources`, `edges`) are already counted by the page size of the field above them.
 */
const ASSUMED_LIST_SIZES: Record<string, number> = {
  'Query.repositories': 50, 'Query.managedRepositories': 50, 'Integration.repositories': 50,
  'Query.integrations': 20, 'Query.tagKeys': 20, 'TagKey.values': 20,
  'DeploymentPage.resources': 1, 'DeploymentConnection.edges': 1, 'RevisionPage.resources': 1, 'RevisionConnection.edges': 1,
};
const DEFAULT_LIST_SIZE = 10;

/**
 * The largest page each paged field serves (MAX_PAGE_SIZE unless listed): a page argument above it costs that
 * page, since the field's resolver refuses it with a message that names the argument and its range ("limit
 * must be between 1 and 100"), which says more than the cost limit would.
 */
const LARGEST_PAGES: Record<string, number> = { 'Revision.logPage': MAX_LOG_PAGE, 'Revision.logs': MAX_LOG_PAGE };

function sizeOf(type: GraphQLCompositeType, field: GraphQLField<unknown, unknown>, args: Record<string, unknown>): number | undefined {
  const page = args.limit ?? args.first ?? args.last;
  if (typeof page === 'number') return Math.max(1, Math.min(page, LARGEST_PAGES[`${type.name}.${field.name}`] ?? MAX_PAGE_SIZE));
  if (Array.isArray(args.ids)) return Math.max(1, args.ids.length);
  if (field.args.some((arg) => arg.name === 'first')) return DEFAULT_PAGE_SIZE;
  if (isListType(getNullableType(field.type))) return ASSUMED_LIST_SIZES[`${type.name}.${field.name}`] ?? DEFAULT_LIST_SIZE;
  return undefined;
}

/** A field costs 1; one that returns many multiplies the cost of what is selected inside it. */
const listSizeEstimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  // Introspection (`__schema`, `__type`) is free, like in the other limits: GraphiQL must always load.
  if (field.name.startsWith('__')) return 0;
  const size = sizeOf(type, field, args);
  return size === undefined ? undefined : 1 + size * childComplexity;
};

const estimators = [listSizeEstimator, simpleEstimator({ defaultComplexity: 1 })];

/** The field arguments sizeOf reads: only variables in these (or in a directive) change an operation's cost. */
const PAGE_ARGUMENTS = new Set(['limit', 'first', 'last', 'ids']);
/** A variable not sent (its default applies) is told apart from one sent as null. */
const ABSENT = '\u0000absent';

/**
 * The variables a document's cost depends on: those in a page argument or a directive (`@include(if: $x)`).
 * A write's input, a record's id or a filter's text do not change it, so a REST route or a dashboard's query
 * costs one computation whatever values it is sent with.
 */
function costVariablesOf(document: DocumentNode): string[] {
  const names = new Set<string>();
  const collect = (node: Parameters<typeof visit>[0]) => visit(node, { Variable: (variable) => { names.add(variable.name.value); } });
  visit(document, {
    Directive: (directive) => { collect(directive); return false; },
    Argument: (argument) => {
      if (PAGE_ARGUMENTS.has(argument.name.value)) collect(argument.value);
      return false;
    },
  });
  return [...names].sort();
}
const CACHED_VARIABLE_SETS = 64;
const MAX_CACHED_KEY_LENGTH = 512;

type CostedArgs = { schema: GraphQLSchema; document: DocumentNode; variableValues?: unknown; operationName?: string | null };

/**
 * The cost limit, with the costs it has computed. The plugin below applies it to every execution; a prepared
 * operation the runner runs (runner/run-operation.ts) is asked too.
 */
export interface QueryCostLimit {
  /** The refusal of an operation over the limit (or with variables that do not fit it), or undefined. */
  refusalOf(args: CostedArgs): ExecutionResult | undefined;
}

export function queryCostLimit(maxCost: number): QueryCostLimit {
  // The cost depends on the document and its page variables only; REST routes and dashboards repeat both.
  const costs = new WeakMap<DocumentNode, { variables: string[]; known: Map<string, number> }>();

  function costOf(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | undefined, operationName: string | undefined): number {
    let costed = costs.get(document);
    if (!costed) costs.set(document, (costed = { variables: costVariablesOf(document), known: new Map() }));
    const { known } = costed;
    // Variables that do not fit the operation are refused whatever the cache holds, with the error the cost's
    // own coercion would have thrown (its last).
    const operation = getOperationAST(document, operationName);
    if (operation?.variableDefinitions?.length) {
      const { errors } = getVariableValues(schema, operation.variableDefinitions, variables ?? {});
      if (errors?.length) throw errors.at(-1);
    }
    const key = `${operationName ?? ''}\u0000${JSON.stringify(costed.variables.map((name) => (variables && name in variables ? variables[name] : ABSENT)))}`;
    const cached = known.get(key);
    if (cached !== undefined) return cached;
    const cost = getComplexity({ schema, query: document, variables: variables ?? {}, operationName, estimators });
    // Large variable sets (a long id list) are not kept: the cache must stay small whatever clients send.
    if (key.length > MAX_CACHED_KEY_LENGTH) return cost;
    if (known.size >= CACHED_VARIABLE_SETS) known.delete(known.keys().next().value!);
    known.set(key, cost);
    return cost;
  }

  function refusalOf(args: CostedArgs): ExecutionResult | undefined {
    let cost: number;
    try {
      cost = costOf(args.schema, args.document, (args.variableValues ?? undefined) as Record<string, unknown> | undefined, args.operationName ?? undefined);
    } catch (error) {
      // Variables that do not fit the operation: refused here as they would be by execution (never run
      // without a cost).
      const message = error instanceof GraphQLError ? error.message : 'Invalid variables.';
      return {
        errors: [new GraphQLError(message, {
          nodes: error instanceof GraphQLError ? error.nodes : undefined,
          // A request error in GraphQL over HTTP's terms: 400 for application/graphql-response+json.
          extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
        })],
      };
    }
    if (cost <= maxCost) return undefined;
    return {
      errors: [new GraphQLError(`Query cost limit of ${maxCost} exceeded, found ${cost}: ask for smaller pages or fewer fields.`, {
        extensions: { code: 'QUERY_TOO_COMPLEX', cost, maxCost, http: { status: 400 } },
      })],
    };
  }

  return { refusalOf };
}

export function useQueryCostLimit({ refusalOf }: QueryCostLimit): Plugin {
  // A subscription's document is checked once, when it subscribes: each of its events executes that document.
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const refusal = refusalOf(args);
      if (refusal) setResultAndStopExecution(refusal);
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const refusal = refusalOf(args);
      if (refusal) setResultAndStopExecution(refusal);
    },
  };
}
