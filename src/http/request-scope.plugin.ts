// Yoga's side of the request scope: names the GraphQL route for the metrics and puts the caller's remaining
// budget on every answer (RateLimit-* headers; a 429 carries its own), as the operation runner does on its own
// answers (runner/answer.ts).
import type { Plugin } from 'graphql-yoga';
import { rateLimitHeaders } from '../graphql/errors.ts';
import { scopeOfServerContext } from '../observability/request-scope.ts';

export function useRequestScope(graphqlEndpoint: string): Plugin {
  return {
    onRequest({ url, serverContext }) {
      if (url.pathname === graphqlEndpoint) scopeOfServerContext(serverContext).route = graphqlEndpoint;
    },
    onResponse({ response, serverContext }) {
      const state = scopeOfServerContext(serverContext).rateLimit;
      if (!state || response.status === 429) return;
      for (const [name, value] of Object.entries(rateLimitHeaders(state))) response.headers.set(name, value);
    },
  };
}
