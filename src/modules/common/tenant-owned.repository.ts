// Batch reads shared by every tenant-owned entity, as lean rows (see lean-rows.ts). They run on the request's
// tenant-scoped EntityManager, so an id of another tenant comes back exactly like an unknown one: null, or no
// children.
import { EntityRepository, type QueryOrderMap } from '@mikro-orm/postgresql';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';
import { groupedByParent, inRequestedOrder } from './batch-results.ts';
import { leanRows } from './lean-rows.ts';

export class TenantOwnedRepository<T extends { id: string }> extends EntityRepository<T> {
  protected get tenantSafeEm(): TenantSafeEntityManager {
    return this.getEntityManager() as TenantSafeEntityManager;
  }

  /**
   * One row per requested id, in the same order, or null where the tenant has no such row. `fields`: the
   * properties to read (default: every column).
   */
  protected async rowsByIds<Row extends { id: string }>(ids: readonly string[], fields?: readonly string[]): Promise<(Row | null)[]> {
    if (ids.length === 0) return [];
    const rows = await leanRows<Row>(this.tenantSafeEm, this.entityName, { id: { $in: [...new Set(ids)] } }, { fields: fields && [...fields] });
    return inRequestedOrder(ids, rows, (row) => row.id);
  }

  /**
   * The rows of many parents in one statement, grouped by parent id in the requested order: `parent` names the
   * many-to-one property that points at the parent and its column (which `fields`, if given, must include).
   */
  protected async rowsGroupedBy<Row>(
    parent: { property: keyof T & string; column: keyof Row & string }, parentIds: readonly string[],
    orderBy: QueryOrderMap<T>[], fields?: readonly string[],
  ): Promise<Row[][]> {
    if (parentIds.length === 0) return [];
    const where = { [parent.property]: { $in: [...new Set(parentIds)] } };
    const rows = await leanRows<Row>(this.tenantSafeEm, this.entityName, where, { orderBy, fields: fields && [...fields] });
    return groupedByParent(parentIds, rows, (row) => row[parent.column] as string);
  }
}
