// The lean read path: rows exactly as PostgreSQL returns them (column names, jsonb value objects with their
// stored legacy keys, relations as their id columns), from a filtered QueryBuilder, without creating
// entities, snapshots, identity-map entries or even renaming keys. Pages are read-only, and hydrating a
// hundred deployments with their nested resource specs as entities cost several times the query itself
// (see docs/performance.md).
import type { EntityName, QueryOrderMap } from '@mikro-orm/postgresql';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';
import { statementTemplates, type LeanQuery } from './statement-templates.ts';

/**
 * A timestamptz as the driver hands it over (MikroORM has pg return them as text, e.g.
 * `2024-01-01 00:07:06.049+00`), as a Date; the text is made ISO 8601 first rather than left to Date's
 * implementation-defined parsing.
 */
export function timestampFromText(text: string | Date): Date {
  if (text instanceof Date) return text;
  return new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
}

export function leanRows<Row>(
  em: TenantSafeEntityManager, entity: EntityName<any>, where: object, options: LeanQuery & { orderBy?: QueryOrderMap<object>[] } = {},
): Promise<Row[]> {
  // From a filtered QueryBuilder, whose SQL is built once per shape of query (statement-templates.ts).
  return statementTemplates(em).rows<Row>(em, entity, where, options as LeanQuery);
}

const propertyOfColumnByEntity = new WeakMap<object, Map<string, string>>();

/**
 * The entity properties to select for `always` and `columns` (as lean rows name them); undefined columns (a
 * selection that declares nothing, see graphql/selected-columns.ts) stay undefined: every column. A column
 * the entity does not map is a programming error, and throws.
 */
export function propertiesOfColumns(
  em: TenantSafeEntityManager, entity: EntityName<any>, columns: readonly string[] | undefined, always: readonly string[],
): string[] | undefined {
  if (!columns) return undefined;
  const meta = em.getMetadata().find(entity)!;
  let propertyOfColumn = propertyOfColumnByEntity.get(meta);
  if (!propertyOfColumn) {
    propertyOfColumn = new Map(meta.props.filter((prop) => prop.persist !== false && prop.fieldNames?.length === 1).map((prop) => [prop.fieldNames[0]!, prop.name]));
    propertyOfColumnByEntity.set(meta, propertyOfColumn);
  }
  const properties = new Set<string>();
  // In one order whatever the selection's, so that `{ url name }` and `{ name url }` share a statement.
  for (const column of [...always, ...columns.toSorted()]) {
    const property = propertyOfColumn.get(column);
    if (!property) throw new Error(`${meta.className} has no column "${column}"`);
    properties.add(property);
  }
  return [...properties];
}
