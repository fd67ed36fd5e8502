// Authentication (and the caller's rate-limit budget) before a /graphql document is parsed or validated:
// parsing and validating cost CPU, and a caller without a valid key or budget should not get that work done.
import type { Plugin } from 'graphql-yoga';
import { authenticateFirst, type AppServices } from './context.ts';

export function useAuthenticateFirst(services: AppServices): Plugin {
  return {
    onParams: ({ request }) => authenticateFirst(request, services),
  };
}
