// Everything a database stores, as text: what an attacker with a copy of the database (a dump, a backup, a
// replica's disk) reads. Tests search it for values that must exist at rest only sealed.
import type pg from 'pg';

type Query = <R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>;

/** Every row of every table in the public schema as text, and every bytea column as escaped text. */
export async function everythingStored(query: Query): Promise<{ text: string; byteaColumns: { table_name: string; column_name: string }[] }> {
  const tables = await query<{ table_name: string }>(
    `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`);
  const byteaColumns = await query<{ table_name: string; column_name: string }>(
    `select table_name, column_name from information_schema.columns where table_schema = 'public' and data_type = 'bytea'`);
  const parts: string[] = [];
  for (const { table_name: table } of tables) {
    parts.push(...(await query<{ row: string }>(`select t::text as row from "${table}" t`)).map((r) => r.row));
  }
  for (const { table_name: table, column_name: column } of byteaColumns) {
    parts.push(...(await query<{ text: string }>(`select encode("${column}", 'escape') as text from "${table}"`)).map((r) => r.text));
  }
  return { text: parts.join('\n'), byteaColumns };
}

/** The forms a value takes in a dump or a log: as it is, JSON-escaped, hex and base64 of its UTF-8 bytes. */
export function formsOf(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  return [value, JSON.stringify(value).slice(1, -1), bytes.toString('hex'), bytes.toString('base64').replace(/=+$/, '')];
}
