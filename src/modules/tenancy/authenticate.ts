// Who is calling and for which tenant (docs/decisions.md#authentication-and-tenants), shared by both doors.
// The messages are the legacy REST bodies, word for word; GraphQL carries the same text.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKeySchema } from './api-key.entity.ts';
import type { ApiKeyCache, VerifiedKey } from './api-key-cache.ts';
import { hashApiKey, looksLikeApiKey } from './api-key-secret.ts';

export interface Principal {
  apiKeyId: string;
  tenantId: string;
  mayReadSecrets: boolean;
  /** Whether the key may create, change and delete (`apikey create --write`). */
  mayWrite: boolean;
  /** Whether the key is a data plane's: it claims revisions and reports their progress (`--reconcile`). */
  mayReconcile: boolean;
  /**
   * The tenants a data plane's operations act for: the one the request names, else every tenant of the key.
   * A data-plane key of several tenants that names none acts for no single tenant: `tenantId` is then
   * NO_SINGLE_TENANT, and everything but the data-plane operations refuses it as a read without a tenant is.
   */
  tenantIds: readonly string[];
  /**
   * The listener a data-plane key is bound to (`--listener`): it claims and reports on that listener's deployments
   * only; null: a key of no listener, which works on the deployments on no listener (docs/decisions.md#listeners).
   */
  listenerId: string | null;
}

/** The `tenantId` of a data-plane key of several tenants that named none (see Principal.tenantIds). */
export const NO_SINGLE_TENANT = '';

/** The message of a request that must name a tenant (the legacy REST body; the original's CLI matches it). */
export const TENANT_REQUIRED = 'requires workspace specification';

export type AuthFailure = 'missing-key' | 'invalid-key' | 'tenant-not-granted' | 'tenant-required';

export class AuthError extends Error {
  override name = 'AuthError';
  readonly reason: AuthFailure;
  readonly status: 401 | 403;
  constructor(reason: AuthFailure, message: string) {
    super(message);
    this.reason = reason;
    this.status = reason === 'missing-key' || reason === 'invalid-key' ? 401 : 403;
  }
}

/** The presented key: `X-Api-Key`, else `Authorization: Bearer <key>` (header names are case-insensitive). */
export function presentedApiKey(headers: Pick<Headers, 'get'>): string | undefined {
  const direct = headers.get('x-api-key')?.trim();
  if (direct) return direct;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.get('authorization') ?? '');
  return bearer?.[1];
}

/**
 * The presented key as verified: from the cache when it holds it (by the key as presented: only a key that was
 * verified is ever cached, so a hit needs neither the shape check nor the hash), else from the database.
 */
async function verify(presented: string, em: EntityManager, cache: ApiKeyCache | undefined): Promise<VerifiedKey | undefined> {
  const cached = cache?.get(presented);
  if (cached) return cached;
  if (!looksLikeApiKey(presented)) return undefined;
  const generation = cache?.generation ?? 0;
  const apiKey = await em.fork().getRepository(ApiKeySchema).findByKeyHash(hashApiKey(presented));
  if (!apiKey || apiKey.revokedAt) return undefined;
  const verified = { apiKeyId: apiKey.id, tenantIds: apiKey.tenants.getItems().map((t) => t.id), mayReadSecrets: apiKey.mayReadSecrets, mayWrite: apiKey.mayWrite, mayReconcile: apiKey.mayReconcile, listenerId: apiKey.listenerId ?? null };
  cache?.set(presented, verified, generation);
  return verified;
}

export async function authenticate(headers: Pick<Headers, 'get'>, em: EntityManager, cache?: ApiKeyCache): Promise<Principal> {
  const presented = presentedApiKey(headers);
  if (!presented) throw new AuthError('missing-key', 'Not authenticated');
  const apiKey = await verify(presented, em, cache);
  if (!apiKey) throw new AuthError('invalid-key', 'Invalid API key');
  return principalOf(apiKey, headers);
}

/**
 * The caller, at once, where the cache holds the presented key and the request names a tenant the key may read
 * (or none and the key has one); undefined otherwise, and authenticate() decides.
 */
export function cachedPrincipal(headers: Pick<Headers, 'get'>, cache: ApiKeyCache): Principal | undefined {
  const presented = presentedApiKey(headers);
  const apiKey = presented === undefined ? undefined : cache.get(presented);
  if (!apiKey) return undefined;
  try {
    return principalOf(apiKey, headers);
  } catch {
    return undefined;
  }
}

/** The verified key's caller, for the tenant the request names (or the key's only one). */
function principalOf(apiKey: VerifiedKey, headers: Pick<Headers, 'get'>): Principal {
  const granted = apiKey.tenantIds;
  const requested = headers.get('x-tenant-id')?.trim();
  let tenantId: string;
  let tenantIds: readonly string[];
  if (requested) {
    const match = granted.find((id) => id === requested.toLowerCase());
    if (!match) throw new AuthError('tenant-not-granted', `Tenant ${requested} is not accessible with this API key`);
    tenantId = match;
    tenantIds = [match];
  } else if (granted.length === 1 || !apiKey.mayReconcile) {
    if (granted.length !== 1) throw new AuthError('tenant-required', TENANT_REQUIRED);
    tenantId = granted[0]!;
    tenantIds = granted;
  } else {
    tenantId = NO_SINGLE_TENANT;
    tenantIds = granted;
  }
  return { apiKeyId: apiKey.apiKeyId, tenantId, tenantIds, mayReadSecrets: apiKey.mayReadSecrets, mayWrite: apiKey.mayWrite, mayReconcile: apiKey.mayReconcile, listenerId: apiKey.listenerId };
}
