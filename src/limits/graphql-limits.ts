// What a GraphQL document may ask for (OWASP GraphQL cheat sheet), checked during validation, before any
// resolver runs: depth, cost, aliases, directives and tokens (graphql-armor), and, when configured for
// production, no introspection and no "did you mean" suggestions that would reveal the schema anyway.
// Introspection is exempt from depth and cost, so GraphiQL's own introspection query always gets through.
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { NoSchemaIntrospectionCustomRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Limits with room for what our clients send: a deployment with every field reachable from it (the REST
 * record, or the benchmark's full selection) has depth 6 and costs about 2,000.
 */
export const GRAPHQL_LIMITS = {
  maxDepth: 10,
  maxCost: 5000,
  maxAliases: 15,
  maxDirectives: 50,
  maxTokens: 5000,
} as const;

export interface GraphQLLimitOptions {
  /** Off in production: `__schema`/`__type` are refused and field suggestions removed from messages. */
  introspection: boolean;
}

export function graphqlLimitPlugins({ introspection }: GraphQLLimitOptions): Plugin[] {
  const armor = new EnvelopArmor({
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth, ignoreIntrospection: true, flattenFragments: true },
    costLimit: { maxCost: GRAPHQL_LIMITS.maxCost, ignoreIntrospection: true, flattenFragments: true },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives },
    maxTokens: { n: GRAPHQL_LIMITS.maxTokens },
    blockFieldSuggestion: { enabled: !introspection },
  });
  const plugins = armor.protect().plugins as Plugin[];
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
