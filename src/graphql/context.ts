// The per-request object: who is asking, for which tenant, and an EntityManager fork that can only see
// that tenant's rows. Resolvers reach data only through it.
import type { AppOrm } from '../db/orm-config.ts';
import type { TenantSafeEntityManager } from '../db/tenant-safe-entity-manager.ts';
import { scopeToTenant } from '../modules/common/tenant-scope.ts';
import { authenticate, type Principal } from '../modules/tenancy/authenticate.ts';
import type { SecretCipher } from '../modules/deployments/secret-cipher.ts';
import { authErrorToGraphQL } from './errors.ts';

export interface AppServices {
  orm: AppOrm;
  cipher: SecretCipher;
}

export interface GraphQLContext {
  principal: Principal;
  em: TenantSafeEntityManager;
  cipher: SecretCipher;
}

export async function createGraphQLContext(request: Request, services: AppServices): Promise<GraphQLContext> {
  const em = services.orm.em;
  const principal = await authenticate(request.headers, em).catch(authErrorToGraphQL);
  return { principal, em: scopeToTenant(em, principal.tenantId), cipher: services.cipher };
}
