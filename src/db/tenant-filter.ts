// Tenant scoping lives in the data layer: every tenant-owned entity carries the `tenant` filter, enabled by
// default, and the filter refuses to run without a tenant. A query written later cannot forget the scope:
// it either runs inside a request's tenant-scoped EntityManager or it throws. The domain's entities declare
// the filter (tenantFilter); how a request's EntityManager gets its tenant is modules/common/tenant-scope.ts.

export const TENANT_FILTER = 'tenant';

export class TenantScopeMissingError extends Error {
  override name = 'TenantScopeMissingError';
  constructor(entityName: string | undefined) {
    super(`Refusing to query ${entityName ?? 'a tenant-owned entity'} without a tenant scope; use a tenant-scoped EntityManager (scopeToTenant)`);
  }
}

export interface TenantFilterArgs {
  tenantId: string;
}

/**
 * The `tenant` filter for an entity whose `column` holds the tenant id: `tenant` on tenant-owned rows,
 * `id` on the tenant table itself (a request sees its own tenant only).
 */
export function tenantFilter(column: 'tenant' | 'id') {
  return {
    [TENANT_FILTER]: {
      name: TENANT_FILTER,
      default: true,
      // `args: false` lets the condition run without parameters, so the missing scope reaches our own
      // error (with the entity's name) instead of MikroORM's generic one.
      args: false,
      cond: (args: Partial<TenantFilterArgs> | undefined, _type: unknown, _em: unknown, _options: unknown, entityName?: string) => {
        if (typeof args?.tenantId !== 'string' || args.tenantId === '') throw new TenantScopeMissingError(entityName);
        return { [column]: args.tenantId };
      },
    },
  };
}
