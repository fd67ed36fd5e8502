// Batch reads shared by every tenant-owned entity. They run on the request's tenant-scoped EntityManager, so
// an id of another tenant comes back exactly like an unknown one: null, or no children.
import { EntityRepository, type FilterQuery, type QueryOrderMap } from '@mikro-orm/postgresql';
import { groupedByParent, inRequestedOrder } from './batch-results.ts';

export class TenantOwnedRepository<T extends { id: string }> extends EntityRepository<T> {
  /** One entry per requested id, in the same order: the entity, or null when the tenant has no such row. */
  async findByIds(ids: readonly string[]): Promise<(T | null)[]> {
    if (ids.length === 0) return [];
    const found = await this.find({ id: { $in: [...new Set(ids)] } } as unknown as FilterQuery<T>);
    return inRequestedOrder(ids, found, (entity) => entity.id);
  }

  /**
   * The children of many parents in one query, grouped by parent id in the requested order
   * (`parent` is the many-to-one property that points at the parent).
   */
  async findGroupedBy(parent: keyof T & string, parentIds: readonly string[], orderBy: QueryOrderMap<T> | QueryOrderMap<T>[]): Promise<T[][]> {
    if (parentIds.length === 0) return [];
    const found = await this.find({ [parent]: { $in: [...new Set(parentIds)] } } as unknown as FilterQuery<T>, { orderBy });
    return groupedByParent(parentIds, found, (child) => (child[parent] as { id: string }).id);
  }
}
