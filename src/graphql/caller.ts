// Who is asking: the request's API key verified, its tenant chosen and one request of its budget spent, once
// per HTTP request whoever asks first (the operation runner, or Yoga's onParams for what the runner declines).
// The outcome, a refusal too, is kept in the request's scope, which every later step is handed.
import type { RequestScope, RateLimitState } from '../observability/request-scope.ts';
import { AuthError, authenticate, cachedPrincipal, type Principal } from '../modules/tenancy/authenticate.ts';
import type { AppServices } from './context.ts';
import { authErrorToGraphQL, rateLimitToGraphQL } from './errors.ts';

/** What authentication reads of a request: a Fetch API Request's headers are such, and so are node:http's, wrapped. */
export type CallerHeaders = Pick<Headers, 'get'>;

/**
 * The caller, its budget spent: at once where that needs no wait (a key the cache holds, budgets counted in
 * this process), else a promise. A refused caller gets a GraphQLError (UNAUTHENTICATED, FORBIDDEN,
 * RATE_LIMITED) thrown or rejected, the same at every call for the same scope.
 */
export function callerOf(scope: RequestScope, headers: CallerHeaders, services: AppServices): Principal | Promise<Principal> {
  if (scope.caller) return scope.caller;
  const atOnce = callerAtOnce(scope, headers, services);
  if (atOnce) return atOnce;
  return (scope.caller ??= authenticateAndSpend(scope, headers, services));
}

/**
 * The common request: the async functions and promises of authenticateAndSpend cost a `{ __typename }` about
 * 4% of its CPU (docs/performance.md#authentication-at-once). Undefined where it cannot tell, having spent
 * nothing; a budget that is gone leaves its refusal in the scope.
 */
function callerAtOnce(scope: RequestScope, headers: CallerHeaders, { apiKeys, rateLimiter }: AppServices): Principal | Promise<Principal> | undefined {
  if (!apiKeys) return undefined;
  const principal = cachedPrincipal(headers, apiKeys);
  if (!principal) return undefined;
  let state: RateLimitState | undefined;
  try {
    state = rateLimiter?.consumeAtOnce(principal.apiKeyId);
  } catch (refusal) {
    scope.tenantId = principal.tenantId;
    const refused = Promise.reject(refusal).catch(rateLimitToGraphQL);
    // Whoever asks next is handed the refusal; this promise is not left unobserved meanwhile.
    refused.catch(() => {});
    return (scope.caller = refused);
  }
  if (rateLimiter && !state) return undefined;
  scope.tenantId = principal.tenantId;
  scope.rateLimit = state;
  return (scope.caller = principal);
}

async function authenticateAndSpend(scope: RequestScope, headers: CallerHeaders, services: AppServices): Promise<Principal> {
  const { rateLimiter } = services;
  const principal = await authenticate(headers, services.orm.em, services.apiKeys).catch(async (error: unknown) => {
    // An address that keeps presenting wrong keys gets 429 instead of 401.
    if (rateLimiter && scope.clientAddress && error instanceof AuthError && error.reason === 'invalid-key') {
      await rateLimiter.recordAuthFailure(scope.clientAddress).catch(rateLimitToGraphQL);
    }
    return authErrorToGraphQL(error, services.demoKeyFile);
  });
  scope.tenantId = principal.tenantId;
  if (rateLimiter) scope.rateLimit = await rateLimiter.consume(principal.apiKeyId).catch(rateLimitToGraphQL);
  return principal;
}
