// Rows in the text format of PostgreSQL's COPY (https://www.postgresql.org/docs/current/sql-copy.html):
// columns separated by tabs, rows by newlines, \N for null, and a backslash before any backslash, tab,
// newline or carriage return inside a value. bytea goes as \x followed by hex (its backslash doubled).
import type { StagedRow, StagingTable } from './staging-tables.ts';
import { columnsOf } from './staging-tables.ts';

const SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function field(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string') return SPECIAL.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return `\\\\x${value.toString('hex')}`;
  throw new TypeError(`no COPY text for ${typeof value}`);
}

/** Encodes rows of one staging table, in its column order. */
export class CopyText<T extends StagingTable> {
  readonly table: T;
  readonly #columns: string[];
  #lines: string[] = [];
  constructor(table: T) {
    this.table = table;
    this.#columns = columnsOf(table);
  }

  get rowCount(): number {
    return this.#lines.length;
  }

  add(row: StagedRow<T>): void {
    const values = row as Record<string, unknown>;
    let line = '';
    for (let i = 0; i < this.#columns.length; i++) line += (i ? '\t' : '') + field(values[this.#columns[i]!]);
    this.#lines.push(line);
  }

  /** The rows added since the last take, as COPY data; empties the buffer. */
  take(): string {
    const text = this.#lines.length ? `${this.#lines.join('\n')}\n` : '';
    this.#lines = [];
    return text;
  }
}
