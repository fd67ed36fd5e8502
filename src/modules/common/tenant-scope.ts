// Tenant scoping lives in the data layer: every tenant-owned entity carries the `tenant` filter, enabled by
// default, and the filter refuses to run without a tenant. A query written later cannot forget the scope:
// it either runs inside a request's tenant-scoped EntityManager or it throws.
import type { EntityManager } from '@mikro-orm/postgresql';

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

/**
 * Find options of the few operator paths that work before or across tenants (authentication, the demo data,
 * the CLIs): they opt out of every filter explicitly, query by query, so the opt-out is easy to grep for.
 */
export const ACROSS_TENANTS = { filters: false } as const;

/** A fresh EntityManager whose every query of a tenant-owned entity is limited to `tenantId`. */
export function scopeToTenant<T extends EntityManager>(em: T, tenantId: string): T {
  const scoped = em.fork() as T;
  scoped.setFilterParams(TENANT_FILTER, { tenantId } satisfies TenantFilterArgs);
  return scoped;
}

/** The tenant an EntityManager is scoped to, for the few hand-written statements; throws when it has none. */
export function scopedTenantId(em: EntityManager, entityName: string): string {
  const args = em.getFilterParams<Partial<TenantFilterArgs>>(TENANT_FILTER);
  if (typeof args?.tenantId !== 'string' || args.tenantId === '') throw new TenantScopeMissingError(entityName);
  return args.tenantId;
}
