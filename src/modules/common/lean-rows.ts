// The lean read path: rows exactly as PostgreSQL returns them (column names, jsonb value objects with their
// stored legacy keys, relations as their id columns), from a filtered QueryBuilder, without creating
// entities, snapshots, identity-map entries or even renaming keys. Pages are read-only, and hydrating a
// hundred deployments with their nested resource specs as entities cost several times the query itself
// (see the README's Performance section).
import type { EntityName, QueryOrderMap } from '@mikro-orm/postgresql';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';

/**
 * A timestamptz as the driver hands it over (MikroORM has pg return them as text, e.g.
 * `2024-01-01 00:07:06.049+00`), as a Date; the text is made ISO 8601 first rather than left to Date's
 * implementation-defined parsing.
 */
export function timestampFromText(text: string | Date): Date {
  if (text instanceof Date) return text;
  return new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
}

export async function leanRows<Row>(
  em: TenantSafeEntityManager, entity: EntityName<any>, where: object, options: { fields?: string[]; orderBy?: QueryOrderMap<object>[]; limit?: number; offset?: number } = {},
): Promise<Row[]> {
  const qb = await em.filteredQueryBuilder(entity, 'e');
  qb.select((options.fields ?? ['*']) as never).andWhere(where as never);
  if (options.orderBy) qb.orderBy(options.orderBy as never);
  if (options.limit !== undefined) qb.limit(options.limit);
  if (options.offset) qb.offset(options.offset);
  return (await qb.execute('all', false)) as Row[];
}
