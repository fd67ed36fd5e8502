// Composition root: wires the schema, the per-request context and the HTTP server. No business logic.
import { createServer, type Server } from 'node:http';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { schema } from './graphql/schema.ts';
import { graphiqlOptions } from './graphql/graphiql.ts';
import { maskUnexpectedError } from './graphql/mask-error.ts';
import { hasVariableDefaults } from './graphql/variable-defaults.ts';
import { useLegacyRest } from './rest/rest-plugin.ts';
import { REST_ROUTES } from './rest/routes.ts';
import { createGraphQLContext, type AppServices, type GraphQLContext } from './graphql/context.ts';

export const GRAPHQL_PATH = '/graphql';

export interface App {
  yoga: YogaServerInstance<Record<string, never>, GraphQLContext>;
  server: Server;
}

export interface AppOptions {
  /** Embedded demo mode: GraphiQL opens with this key in its headers. */
  demoApiKey?: string;
}

export function createApp(services: AppServices, options: AppOptions = {}): App {
  const yoga = createYoga<Record<string, never>, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    context: ({ request }) => createGraphQLContext(request, services),
    graphiql: graphiqlOptions(options.demoApiKey),
    landingPage: false,
    plugins: [
      // Operations run compiled (graphql-jit, cached per document), except documents whose variables have
      // default values: graphql-jit 0.8 rejects an omitted `$x: Int! = 0`, which graphql-js accepts.
      useGraphQlJit({}, { enableIf: (args) => !hasVariableDefaults(args.document) }),
      // The legacy /v1 and /v2 paths, /openapi.json and /docs: fixed operations through this same Yoga.
      useLegacyRest({ routes: REST_ROUTES, graphqlEndpoint: GRAPHQL_PATH }),
    ],
    // Unexpected errors reach clients as "Unexpected error."; details stay in the server log.
    maskedErrors: { isDev: false, maskError: maskUnexpectedError },
  });
  return { yoga, server: createServer(yoga) };
}
