// The per-request object: who is asking, for which tenant, an EntityManager fork that can only see that
// tenant's rows, and the request's loaders. Resolvers reach data only through it.
import type { AppOrm } from '../db/orm-config.ts';
import type { TenantSafeEntityManager } from '../db/tenant-safe-entity-manager.ts';
import { scopeToTenant } from '../modules/common/tenant-scope.ts';
import { AuthError, authenticate, cachedPrincipal, type Principal } from '../modules/tenancy/authenticate.ts';
import type { ApiKeyCache } from '../modules/tenancy/api-key-cache.ts';
import type { SecretCipher, SecretDecryptionError } from '../modules/secrets/secret-cipher.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import type { DatabaseNotifications } from '../db/database-notifications.ts';
import type { DeploymentChangeFeed } from '../modules/deployments/live/deployment-change-feed.ts';
import type { ReadReplicas } from '../db/read-replicas.ts';
import { currentRequestScope, type RateLimitState, type RequestScope } from '../observability/request-scope.ts';
import { authErrorToGraphQL, rateLimitToGraphQL } from './errors.ts';
import { RequestLoaders } from './loaders.ts';
import type { CallerRequest } from '../http/node-request-headers.ts';

export interface AppServices {
  orm: AppOrm;
  cipher: SecretCipher;
  /** Verified keys, when the service keeps them (see api-key-cache.ts). */
  apiKeys?: ApiKeyCache;
  /** Request budgets per API key (and failed authentications per address); none: unlimited. */
  rateLimiter?: RateLimiter;
  /** Told of every secret that cannot be decrypted (the app logs and counts it). */
  reportUnreadableSecret?: (error: SecretDecryptionError) => void;
  /** The process's LISTEN connection; without it, subscriptions are refused. */
  notifications?: DatabaseNotifications;
  /** Live deployment changes (the app makes it from `notifications`). */
  deploymentChanges?: DeploymentChangeFeed;
  /** Read replicas (DATABASE_REPLICA_URLS); none: every read on `orm`. */
  replicas?: ReadReplicas;
}

export interface GraphQLContext {
  principal: Principal;
  /**
   * The request's reads: on a replica in rotation (`replica` names it), or on the primary. The same
   * EntityManager at every call, made at the first.
   */
  em: () => TenantSafeEntityManager;
  loaders: RequestLoaders;
  replica: string | undefined;
  /** The same tenant's view of the primary: live updates load changes there, and a failed replica's reads rerun there. */
  primaryEm: () => TenantSafeEntityManager;
  cipher: SecretCipher;
  reportUnreadableSecret: (error: SecretDecryptionError) => void;
  /** Where subscriptions get their streams. */
  deploymentChanges: DeploymentChangeFeed | undefined;
}

export async function createGraphQLContext(request: CallerRequest, services: AppServices): Promise<GraphQLContext> {
  const principal = authenticatedRequests.get(request) ?? await authenticateWithinLimits(request, services);
  const { orm, replica } = services.replicas?.pick() ?? { orm: services.orm, replica: undefined };
  // Forked on first use: `{ __typename }`, introspection and documents refused before execution read nothing,
  // and a fork (a copy of the ORM's filters and configuration) cost them about 20 µs.
  let scoped: TenantSafeEntityManager | undefined;
  const em = () => (scoped ??= scopeToTenant(orm.em, principal.tenantId));
  return {
    principal, em, loaders: new RequestLoaders(em, principal.mayReadSecrets ? services.cipher : null), replica,
    primaryEm: () => scopeToTenant(services.orm.em, principal.tenantId),
    cipher: services.cipher,
    reportUnreadableSecret: services.reportUnreadableSecret ?? (() => {}),
    deploymentChanges: services.deploymentChanges,
  };
}

/**
 * Who is asking, spending one request of their budget; an address that keeps presenting wrong keys gets 429.
 * Once per HTTP request: its outcome (a rejection too) is kept in the request scope.
 */
function authenticateWithinLimits(request: CallerRequest, services: AppServices): Promise<Principal> {
  const scope = currentRequestScope();
  if (!scope) return authenticateAndSpend(request, services);
  scope.authentication ??= authenticateAndSpend(request, services);
  return scope.authentication as Promise<Principal>;
}

/**
 * The caller at once, its budget spent, where that needs no wait: a key the cache holds, and budgets counted in
 * this process (or none). The common request: the async functions and promises of authenticateAndSpend cost a
 * `{ __typename }` about 4% of its CPU (docs/performance.md#authentication-at-once). Undefined where it cannot
 * tell, having spent nothing, or where the budget is gone: the request scope then holds the refusal, as
 * authenticateAndSpend would have made it.
 */
function authenticatedAtOnce(request: CallerRequest, services: AppServices, scope: RequestScope): Principal | undefined {
  const { apiKeys, rateLimiter } = services;
  if (!apiKeys || scope.authentication) return undefined;
  const principal = cachedPrincipal(request.headers, apiKeys);
  if (!principal) return undefined;
  let state: RateLimitState | undefined;
  try {
    state = rateLimiter?.consumeAtOnce(principal.apiKeyId);
  } catch (refusal) {
    scope.tenantId = principal.tenantId;
    scope.authentication = Promise.reject(refusal).catch(rateLimitToGraphQL);
    return undefined;
  }
  if (rateLimiter && !state) return undefined;
  scope.tenantId = principal.tenantId;
  scope.rateLimit = state;
  scope.authentication = Promise.resolve(principal);
  return principal;
}

async function authenticateAndSpend(request: CallerRequest, services: AppServices): Promise<Principal> {
  const { rateLimiter } = services;
  const scope = currentRequestScope();
  const principal = await authenticate(request.headers, services.orm.em, services.apiKeys).catch(async (error: unknown) => {
    const address = scope?.clientAddress;
    if (rateLimiter && address && error instanceof AuthError && error.reason === 'invalid-key') {
      await rateLimiter.recordAuthFailure(address).catch(rateLimitToGraphQL);
    }
    return authErrorToGraphQL(error);
  });
  if (scope) scope.tenantId = principal.tenantId;
  if (rateLimiter) {
    const state = await rateLimiter.consume(principal.apiKeyId).catch(rateLimitToGraphQL);
    if (scope) scope.rateLimit = state;
  }
  return principal;
}

// A request is authenticated (and its budget spent) before anything else is done for it: on /graphql before
// its document is parsed and validated, on a REST route before it waits for its turn (rest/rest-plugin.ts).
// None of that work is done for a caller without a valid key or budget; the context then reuses the outcome.
const authenticatedRequests = new WeakMap<CallerRequest, Principal>();

/** Resolves once the caller is authenticated (rejects where it is refused); nothing where that took no wait. */
export function authenticateFirst(request: CallerRequest, services: AppServices): Promise<void> | undefined {
  const scope = currentRequestScope();
  const principal = scope && authenticatedAtOnce(request, services, scope);
  if (principal) {
    authenticatedRequests.set(request, principal);
    return undefined;
  }
  return authenticateWithinLimits(request, services).then((authenticated) => {
    authenticatedRequests.set(request, authenticated);
  });
}
