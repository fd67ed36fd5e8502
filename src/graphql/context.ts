// The per-request object: who is asking, for which tenant, and an EntityManager fork that can only see
// that tenant's rows. Resolvers reach data only through it.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { scopeToTenant } from '../modules/common/tenant-scope.ts';
import { authenticate, type Principal } from '../modules/tenancy/authenticate.ts';
import type { SecretCipher } from '../modules/deployments/secret-cipher.ts';
import { authErrorToGraphQL } from './errors.ts';

export interface AppServices {
  orm: MikroORM;
  cipher: SecretCipher;
}

export interface GraphQLContext {
  principal: Principal;
  em: EntityManager;
  cipher: SecretCipher;
}

export async function createGraphQLContext(request: Request, services: AppServices): Promise<GraphQLContext> {
  const em = services.orm.em;
  const principal = await authenticate(request.headers, em).catch(authErrorToGraphQL);
  return { principal, em: scopeToTenant(em, principal.tenantId), cipher: services.cipher };
}
