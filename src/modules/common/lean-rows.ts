// The lean read path: rows as plain objects straight from a filtered QueryBuilder (property names, jsonb
// value objects parsed, relations as their ids), without creating entities, snapshots or identity-map
// entries. Pages are read-only, and hydrating a hundred deployments with their nested resource specs as
// entities cost several times the query itself (see the README's Performance section).
import type { EntityName, QueryOrderMap } from '@mikro-orm/postgresql';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';

/** A relation read as its id. */
export type Id = string;

export async function leanRows<Row>(
  em: TenantSafeEntityManager, entity: EntityName<any>, where: object, options: { fields?: string[]; orderBy?: QueryOrderMap<object>[]; limit?: number; offset?: number } = {},
): Promise<Row[]> {
  const qb = await em.filteredQueryBuilder(entity, 'e');
  qb.select((options.fields ?? ['*']) as never).andWhere(where as never);
  if (options.orderBy) qb.orderBy(options.orderBy as never);
  if (options.limit !== undefined) qb.limit(options.limit);
  if (options.offset) qb.offset(options.offset);
  return (await qb.execute('all')) as Row[];
}

/** Rows of many parents in one query, grouped by the parent id held in `parent`, in the requested order. */
export async function leanRowsGroupedBy<Row>(
  em: TenantSafeEntityManager, entity: EntityName<any>, parent: string, parentIds: readonly string[],
  options: { fields?: string[]; orderBy?: QueryOrderMap<object>[] } = {},
): Promise<Row[][]> {
  if (parentIds.length === 0) return [];
  const rows = await leanRows<Row>(em, entity, { [parent]: { $in: [...new Set(parentIds)] } }, options);
  const groups = new Map<string, Row[]>(parentIds.map((id) => [id, []]));
  for (const row of rows) groups.get((row as Record<string, string>)[parent]!)?.push(row);
  return parentIds.map((id) => groups.get(id)!);
}
