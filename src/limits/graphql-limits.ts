// What a GraphQL document may ask for (OWASP GraphQL cheat sheet), checked before any resolver runs: depth,
// aliases, directives and tokens (graphql-armor), nesting (nestingLimit), cost (query-cost.plugin.ts), and,
// when configured for production, no introspection and no "did you mean" suggestions that would reveal the
// schema anyway.
// Introspection is exempt from depth and cost, so GraphiQL's own introspection query always gets through.
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { GraphQLError, Lexer, NoSchemaIntrospectionCustomRule, Source, TokenKind, type ValidationContext } from 'graphql';
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
  /**
   * Brackets (`{`, `[`, `(`) inside one another. graphql-js parses recursively: a value literal of 5,000
   * nested objects overflowed the stack (a 500) before the token limit, counted as tokens are read, was
   * reached. A selection stops at maxDepth and a free-form value at 32 levels
   * (docs/decisions.md#text-and-json-the-database-can-hold): 128 leaves room for every document a client needs.
   */
  maxNesting: 128,
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
  // After armor's plugins: the nesting check wraps the parser armor set (its token limit), and runs only for a
  // document that is parsed (Yoga's cache hands over a known one without calling the parser).
  const plugins = [...(armor.protect().plugins as Plugin[]), nestingLimit(), useQueryCostLimit(queryCost)];
  if (!introspection) plugins.push(disableIntrospection());
  return plugins;
}

const OPENING = new Set<string>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSING = new Set<string>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/**
 * Whether brackets nest deeper than maxNesting within the tokens the parser may read (maxTokens): lexed, not
 * parsed, so without recursion. A text the lexer refuses is left to the parser, which says where.
 */
function nestsTooDeep(text: string): boolean {
  const lexer = new Lexer(new Source(text));
  let depth = 0;
  try {
    for (let token = lexer.advance(), count = 1; token.kind !== TokenKind.EOF && count <= GRAPHQL_LIMITS.maxTokens; token = lexer.advance(), count++) {
      if (OPENING.has(token.kind) && ++depth > GRAPHQL_LIMITS.maxNesting) return true;
      if (CLOSING.has(token.kind)) depth--;
    }
  } catch {
    return false;
  }
  return false;
}

/** Refuses a document nested deeper than maxNesting before the parser recurses into it (QUERY_TOO_COMPLEX, 400). */
function nestingLimit(): Plugin {
  return {
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => {
        if (nestsTooDeep(typeof source === 'string' ? source : source.body)) {
          refuse(null, new GraphQLError(`Nesting limit of ${GRAPHQL_LIMITS.maxNesting} exceeded.`));
        }
        return parseFn(source, options);
      });
    },
  };
}

function disableIntrospection(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
}
