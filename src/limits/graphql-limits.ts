// What a GraphQL document may ask for (OWASP GraphQL cheat sheet), checked before any resolver runs: depth,
// aliases, directives and tokens (graphql-armor), cost (query-cost.plugin.ts), and, when configured for
// production, no introspection and no "did you mean" suggestions that would reveal the schema anyway.
// Introspection is exempt from depth and cost, so GraphiQL's own introspection query always gets through.
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { GraphQLError, NoSchemaIntrospectionCustomRule, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { useQueryCostLimit, type QueryCostLimit } from './query-cost.plugin.ts';

/**
 * Limits with room for what our clients send: a page of 100 deployments selecting every field reachable from
 * a deployment without revisiting a type (test/graphql-sql-statements.test.ts) has depth 7 and an estimated
 * cost of about 345,000 (query-cost.plugin.ts: page sizes times the assumed lengths of nested lists; a first
 * page of 20 revisions per deployment included); two such pages in one request pass, three do not, and
 * neither does walking a cycle of lists four deep.
 */
export const GRAPHQL_LIMITS = {
  maxDepth: 10,
  maxCost: 750_000,
  maxAliases: 15,
  maxDirectives: 50,
  maxTokens: 5000,
} as const;

export interface GraphQLLimitOptions {
  /** Off in production: `__schema`/`__type` are refused and field suggestions removed from messages. */
  introspection: boolean;
  /** The cost limit (`queryCostLimit(GRAPHQL_LIMITS.maxCost)`), which the operation runner asks as well. */
  queryCost: QueryCostLimit;
}

/**
 * graphql-armor words a refusal "Syntax Error: ..." and throws it without a code; clients get it as a
 * validation error with code QUERY_TOO_COMPLEX and the limit in its message (HTTP 400).
 */
function refuse(context: ValidationContext | null, error: GraphQLError): void {
  const refusal = new GraphQLError(error.message.replace(/^Syntax Error: /, ''), {
    extensions: { code: 'QUERY_TOO_COMPLEX', http: { status: 400 } },
  });
  if (context) context.reportError(refusal);
  else throw refusal; // while parsing (the token limit), there is no validation context to report to
}

export function graphqlLimitPlugins({ introspection, queryCost }: GraphQLLimitOptions): Plugin[] {
  const rejection = { onReject: [refuse], propagateOnRejection: false };
  const armor = new EnvelopArmor({
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth, ignoreIntrospection: true, flattenFragments: true, ...rejection },
    // Cost counts page sizes, which armor's rule does not: see query-cost.plugin.ts.
    costLimit: { enabled: false },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases, ...rejection },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives, ...rejection },
    maxTokens: { n: GRAPHQL_LIMITS.maxTokens, ...rejection },
    blockFieldSuggestion: { enabled: !introspection },
  });
  const plugins = [...(armor.protect().plugins as Plugin[]), useQueryCostLimit(queryCost)];
  if (!introspection) plugins.push(disableIntrospection());
  return plugins;
}

function disableIntrospection(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
}
