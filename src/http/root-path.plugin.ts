// `/`, the URL people type first: a browser is sent to GraphiQL (to the API docs when GraphiQL is off),
// any other client is told where the API is.
import type { Plugin } from 'graphql-yoga';
import { scopeOfServerContext } from '../observability/request-scope.ts';

export interface RootPathOptions {
  graphqlEndpoint: string;
  graphiql: boolean;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body, null, 2), { status, headers: { 'content-type': 'application/json', ...headers } });

export function useRootPath({ graphqlEndpoint, graphiql }: RootPathOptions): Plugin {
  const directory = {
    graphql: graphqlEndpoint,
    rest: '/v2/deployments',
    docs: '/docs',
    openapi: '/openapi.json',
    authentication: 'X-Api-Key: <key> (or Authorization: Bearer <key>)',
    browser: graphiql ? `open ${graphqlEndpoint} (GraphiQL) or /docs (the REST API)` : 'open /docs (the REST API)',
  };

  return {
    onRequest({ url, request, endResponse, serverContext }) {
      if (url.pathname !== '/') return;
      scopeOfServerContext(serverContext).route = '/';
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return endResponse(json(405, { detail: 'Method Not Allowed' }, { allow: 'GET, HEAD' }));
      }
      // What a browser sends when a person opens the URL (the test GraphiQL itself is rendered on).
      if (request.headers.get('accept')?.includes('text/html')) {
        return endResponse(new Response(null, { status: 302, headers: { location: graphiql ? graphqlEndpoint : '/docs' } }));
      }
      endResponse(request.method === 'HEAD' ? new Response(null, { headers: { 'content-type': 'application/json' } }) : json(200, directory));
    },
  };
}
