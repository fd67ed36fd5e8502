// MikroORM applies filters to em.find/count/populate but not to a QueryBuilder unless it is asked to.
// This EntityManager closes that gap: a QueryBuilder over a tenant-owned entity can only be had through
// filteredQueryBuilder(), which applies the tenant filter (and so fails closed without a tenant).
import { EntityManager, type EntityName, type QueryBuilder } from '@mikro-orm/postgresql';
import { TENANT_FILTER } from './tenant-filter.ts';

export class UnfilteredQueryBuilderError extends Error {
  override name = 'UnfilteredQueryBuilderError';
}

export class TenantSafeEntityManager extends EntityManager {
  private isTenantOwned(entityName: unknown): boolean {
    if (typeof entityName !== 'function' && typeof entityName !== 'string' && !(entityName as { meta?: unknown })?.meta) return false;
    const meta = this.getMetadata().find(entityName as EntityName);
    return !!meta?.filters?.[TENANT_FILTER];
  }

  override createQueryBuilder<Entity extends object, RootAlias extends string = never>(
    entityName: EntityName<Entity> | QueryBuilder<Entity>, ...rest: [RootAlias?, ...unknown[]]
  ): QueryBuilder<Entity, RootAlias> {
    if (this.isTenantOwned(entityName)) {
      throw new UnfilteredQueryBuilderError('A QueryBuilder skips the tenant filter; use em.filteredQueryBuilder() for tenant-owned entities');
    }
    return (super.createQueryBuilder as (...args: unknown[]) => QueryBuilder<Entity, RootAlias>)(entityName, ...rest);
  }

  /**
   * Filters are declared on the entities (the tenant's, tenant-filter.ts), never added to an EntityManager at
   * run time: page statements are built once per shape of query (statement-templates.ts), and a filter that
   * only some EntityManagers carry would be missing from statements built by the others.
   */
  override addFilter(..._args: Parameters<EntityManager['addFilter']>): never {
    throw new Error('EntityManager.addFilter is not supported: declare filters on the entities');
  }

  /**
   * Joins the relation `field` (`alias.property`) of a QueryBuilder from filteredQueryBuilder() with the target
   * entity's active filters in the join condition, as MikroORM's own find does for the relations it joins (a
   * QueryBuilder's explicit join has none): a joined tenant-owned row is the tenant's too, or no row.
   */
  async filteredJoin<Entity extends object>(qb: QueryBuilder<Entity, any>, field: string, alias: string, target: EntityName): Promise<void> {
    const condition = await this.applyFilters(target, {}, {}, 'read');
    qb.join(field as never, alias, (condition ?? {}) as never);
  }

  /** A QueryBuilder with every active filter applied, the tenant filter included (it throws without a tenant). */
  async filteredQueryBuilder<Entity extends object, RootAlias extends string = never>(
    entityName: EntityName<Entity>, alias?: RootAlias,
  ): Promise<QueryBuilder<Entity, RootAlias>> {
    const qb = super.createQueryBuilder<Entity, RootAlias>(entityName, alias);
    await qb.applyFilters();
    return qb;
  }
}
