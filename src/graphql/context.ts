// The per-request object: who is asking, for which tenant, an EntityManager fork that can only see that
// tenant's rows, and the request's loaders. Resolvers reach data only through it.
import type { AppOrm } from '../db/orm-config.ts';
import type { TenantSafeEntityManager } from '../db/tenant-safe-entity-manager.ts';
import { scopeToTenant } from '../modules/common/tenant-scope.ts';
import { authenticate, type Principal } from '../modules/tenancy/authenticate.ts';
import type { ApiKeyCache } from '../modules/tenancy/api-key-cache.ts';
import type { SecretCipher } from '../modules/deployments/secret-cipher.ts';
import { authErrorToGraphQL } from './errors.ts';
import { RequestLoaders } from './loaders.ts';

export interface AppServices {
  orm: AppOrm;
  cipher: SecretCipher;
  /** Verified keys, when the service keeps them (see api-key-cache.ts). */
  apiKeys?: ApiKeyCache;
}

export interface GraphQLContext {
  principal: Principal;
  em: TenantSafeEntityManager;
  loaders: RequestLoaders;
  cipher: SecretCipher;
}

export async function createGraphQLContext(request: Request, services: AppServices): Promise<GraphQLContext> {
  const principal = await authenticate(request.headers, services.orm.em, services.apiKeys).catch(authErrorToGraphQL);
  const em = scopeToTenant(services.orm.em, principal.tenantId);
  return { principal, em, loaders: new RequestLoaders(em, principal.mayReadSecrets), cipher: services.cipher };
}
