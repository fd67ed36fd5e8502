// Yoga's side of the request scope: names the GraphQL route for the metrics and puts the caller's remaining
// budget on every answer (RateLimit-* headers; a 429 carries its own).
import type { Plugin } from 'graphql-yoga';
import { rateLimitHeaders } from '../graphql/errors.ts';
import { currentRequestScope } from '../observability/request-scope.ts';

export function useRequestScope(graphqlEndpoint: string): Plugin {
  return {
    onRequest({ url }) {
      const scope = currentRequestScope();
      if (scope && url.pathname === graphqlEndpoint) scope.route = graphqlEndpoint;
    },
    onResponse({ response }) {
      const state = currentRequestScope()?.rateLimit;
      if (!state || response.status === 429) return;
      for (const [name, value] of Object.entries(rateLimitHeaders(state))) response.headers.set(name, value);
    },
  };
}
