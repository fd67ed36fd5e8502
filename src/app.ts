// Composition root: wires the schema, the per-request context and the HTTP server. No business logic.
import { createServer, type Server } from 'node:http';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { schema } from './graphql/schema.ts';
import { createGraphQLContext, type AppServices, type GraphQLContext } from './graphql/context.ts';

export const GRAPHQL_PATH = '/graphql';

export interface App {
  yoga: YogaServerInstance<Record<string, never>, GraphQLContext>;
  server: Server;
}

export function createApp(services: AppServices): App {
  const yoga = createYoga<Record<string, never>, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    context: ({ request }) => createGraphQLContext(request, services),
    graphiql: {
      title: 'Deployments GraphQL',
      defaultQuery: '# Send your API key: add {"X-Api-Key": "dmk_..."} under Headers below.\n{\n  tenant {\n    id\n    name\n  }\n}\n',
      headers: JSON.stringify({ 'X-Api-Key': '' }),
    },
    landingPage: false,
    // Unexpected errors reach clients as "Unexpected error."; details stay in the server log.
    maskedErrors: { isDev: false }, // never attach stacks or original messages, whatever NODE_ENV says
  });
  return { yoga, server: createServer(yoga) };
}
