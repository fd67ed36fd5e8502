// Yoga's side of authentication, for what the operation runner declines (a GET, a subscription, multipart):
// the same step (graphql/caller.ts), before a /graphql document is parsed or validated, so that a caller
// without a valid key or budget gets none of that work done. A caller the runner has already asked about is
// not authenticated again: the outcome is in the request's scope.
import type { Plugin } from 'graphql-yoga';
import { scopeOfServerContext } from '../observability/request-scope.ts';
import { callerOf } from './caller.ts';
import type { AppServices } from './context.ts';

export function useAuthenticateFirst(services: AppServices): Plugin {
  return {
    onParams: ({ request, context }) => {
      const caller = callerOf(scopeOfServerContext(context), request.headers, services);
      return caller instanceof Promise ? caller.then(() => {}) : undefined;
    },
  };
}
