// The lean read path: rows exactly as PostgreSQL returns them (column names, jsonb value objects with their
// stored legacy keys, relations as their id columns), from a filtered QueryBuilder, without creating
// entities, snapshots, identity-map entries or even renaming keys. Pages are read-only, and hydrating a
// hundred deployments with their nested resource specs as entities cost several times the query itself
// (see docs/performance.md#sql-statements).
import type { EntityName, QueryOrderMap } from '@mikro-orm/postgresql';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';
import type { SelectedColumns } from './selection.ts';
import { statementTemplates, type LeanQuery } from './statement-templates.ts';

/**
 * A timestamptz as the driver hands it over (MikroORM has pg return them as text, e.g.
 * `2024-01-01 00:07:06.049+00`), as a Date. Read by hand rather than left to Date's parsing, which does not
 * take PostgreSQL's forms (below) and, with the rewriting they would need, costs 1.3 us a value: ten times the
 * reading of the usual form, on a page that reads one or two timestamps a row.
 */
export function timestampFromText(text: string | Date): Date {
  if (text instanceof Date) return text;
  return fromUtcText(text) ?? fromOffsetText(text);
}

const digit = (text: string, at: number) => text.charCodeAt(at) - 48;
const twoDigits = (text: string, at: number) => digit(text, at) * 10 + digit(text, at + 1);

/**
 * The form every timestamp takes on a UTC session (`2024-01-01 00:07:06.049+00`, fraction optional), read by
 * position. Anything else (another session time zone, a year before 100 or after 9999) is undefined here.
 */
function fromUtcText(text: string): Date | undefined {
  const end = text.length - 3;
  if (end < 19 || text.charCodeAt(10) !== 32 || text.charCodeAt(end) !== 43 || text.charCodeAt(end + 1) !== 48 || text.charCodeAt(end + 2) !== 48) return undefined;
  let milliseconds = 0;
  if (end > 19) {
    if (text.charCodeAt(19) !== 46) return undefined;
    for (let at = 20; at < 23; at++) milliseconds = milliseconds * 10 + (at < end ? digit(text, at) : 0);
  }
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  // Date.UTC reads years 0 to 99 as 1900 to 1999.
  if (year < 100) return undefined;
  return new Date(Date.UTC(year, twoDigits(text, 5) - 1, twoDigits(text, 8), twoDigits(text, 11), twoDigits(text, 14), twoDigits(text, 17), milliseconds));
}

// PostgreSQL prints the offset as `+05`, `+05:30`, or, for dates before a zone had standard time, with seconds
// (`+05:53:28`), and a local time past 9999 with a five-digit year.
const TIMESTAMP_TEXT = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?$/;

function fromOffsetText(text: string): Date {
  const parts = TIMESTAMP_TEXT.exec(text);
  if (!parts) return new Date(Number.NaN);
  const [year, month, day, hours, minutes, seconds] = parts.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const milliseconds = Number((parts[7] ?? '').padEnd(3, '0').slice(0, 3));
  const offsetSeconds = (Number(parts[9]) * 3600 + Number(parts[10] ?? 0) * 60 + Number(parts[11] ?? 0)) * (parts[8] === '-' ? -1 : 1);
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hours, minutes, seconds, milliseconds);
  return new Date(local.getTime() - offsetSeconds * 1000);
}

export function leanRows<Row>(
  em: TenantSafeEntityManager, entity: EntityName<any>, where: object, options: LeanQuery & { orderBy?: QueryOrderMap<object>[] } = {},
): Promise<Row[]> {
  // From a filtered QueryBuilder, whose SQL is built once per shape of query (statement-templates.ts).
  return statementTemplates(em).rows<Row>(em, entity, where, options as LeanQuery);
}

const propertyOfColumnByEntity = new WeakMap<object, Map<string, string>>();

/**
 * The entity properties to select for `always` and `columns` (as lean rows name them, see common/selection.ts);
 * undefined columns stay undefined: every column. A column the entity does not map is a programming error,
 * and throws.
 */
export function propertiesOfColumns(
  em: TenantSafeEntityManager, entity: EntityName<any>, columns: SelectedColumns, always: readonly string[],
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
