// How the domain uses the tenant filter (db/tenant-filter.ts): a request's EntityManager is scoped to its
// tenant, hand-written statements read that scope, and the few operator paths opt out explicitly.
import type { EntityManager } from '@mikro-orm/postgresql';
import { TENANT_FILTER, TenantScopeMissingError, type TenantFilterArgs } from '../../db/tenant-filter.ts';

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
