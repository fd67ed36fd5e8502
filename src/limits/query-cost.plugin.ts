// The cost of an operation as the number of fields it can resolve, with the page size it asks for: a field
// costs 1, and a field that returns a page (limit, first, last, or a list of ids) costs its page size times
// what is selected inside it (graphql-query-complexity, with variables and argument defaults applied).
// graphql-armor's cost rule judges shape only (and multiplies by first/last only when written as literals),
// so a page of 100 would cost the same as a page of 1 when the size comes in a variable.
import { GraphQLError, type DocumentNode, type GraphQLSchema } from 'graphql';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import type { Plugin } from 'graphql-yoga';

/** A page argument (or a list of ids) multiplies the cost of everything selected inside the field. */
const pageSizeEstimator: ComplexityEstimator = ({ args, childComplexity }) => {
  const size = args.limit ?? args.first ?? args.last ?? (Array.isArray(args.ids) ? args.ids.length : undefined);
  return typeof size === 'number' ? 1 + Math.max(1, size) * childComplexity : undefined;
};

const estimators = [pageSizeEstimator, simpleEstimator({ defaultComplexity: 1 })];
const CACHED_VARIABLE_SETS = 64;

export function useQueryCostLimit(maxCost: number): Plugin {
  // The cost depends on the document and its variables only; REST routes and dashboards repeat both.
  const costs = new WeakMap<DocumentNode, Map<string, number>>();

  function costOf(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | undefined, operationName: string | undefined): number {
    const key = `${operationName ?? ''}\u0000${JSON.stringify(variables ?? {})}`;
    let known = costs.get(document);
    const cached = known?.get(key);
    if (cached !== undefined) return cached;
    const cost = getComplexity({ schema, query: document, variables: variables ?? {}, operationName, estimators });
    if (!known) costs.set(document, (known = new Map()));
    if (known.size >= CACHED_VARIABLE_SETS) known.delete(known.keys().next().value!);
    known.set(key, cost);
    return cost;
  }

  return {
    onExecute({ args, setResultAndStopExecution }) {
      let cost: number;
      try {
        cost = costOf(args.schema, args.document, args.variableValues ?? undefined, args.operationName ?? undefined);
      } catch {
        return; // variables that do not fit: execution reports them properly
      }
      if (cost > maxCost) {
        setResultAndStopExecution({
          errors: [new GraphQLError(`Query cost limit of ${maxCost} exceeded, found ${cost}: ask for smaller pages or fewer fields.`, {
            extensions: { code: 'QUERY_TOO_COMPLEX', cost, maxCost, http: { status: 400 } },
          })],
        });
      }
    },
  };
}
