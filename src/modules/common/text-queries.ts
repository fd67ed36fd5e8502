// Text in queries. Alphabetical order that is the same on every PostgreSQL server: case-insensitive, then by bytes (the "C"
// collation). A server's default collation (en_US.UTF-8 on most hosts) would ignore punctuation and move
// `_tools` or `a-b` depending on where the database was created.
import { raw, type QueryOrderMap } from '@mikro-orm/postgresql';

export function alphabetical<T>(column: string): QueryOrderMap<T> {
  return { [raw((alias) => `lower(${alias}.${column}) collate "C"`)]: 'asc' } as QueryOrderMap<T>;
}

/** A LIKE pattern that matches `text` literally (`%`, `_` and the escape character `\` lose their meaning). */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The same order in JavaScript (lower-cased, then UTF-16 code units, which agree with "C" outside surrogates). */
export function compareAlphabetically(a: string, b: string): number {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  return x < y ? -1 : x > y ? 1 : 0;
}
