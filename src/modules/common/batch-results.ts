// How a batched read answers a DataLoader: one entry per requested key, in the requested order.

/** Each requested id's row, or null where none was found. */
export function inRequestedOrder<Row>(ids: readonly string[], rows: readonly Row[], idOf: (row: Row) => string): (Row | null)[] {
  const byId = new Map(rows.map((row) => [idOf(row), row]));
  return ids.map((id) => byId.get(id) ?? null);
}

/** Each requested parent's children (possibly none), keeping the rows' order within a parent. */
export function groupedByParent<Row>(parentIds: readonly string[], rows: readonly Row[], parentOf: (row: Row) => string): Row[][] {
  const groups = new Map<string, Row[]>(parentIds.map((id) => [id, []]));
  for (const row of rows) groups.get(parentOf(row))?.push(row);
  return parentIds.map((id) => groups.get(id)!);
}
