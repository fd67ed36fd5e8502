// The configuration table of docs/operations.md against what src/config.ts reads: an operator looking a
// variable up finds it, and finds nothing the service ignores.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config.ts';

const read = (file: string) => fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8');

it('documents every variable the service reads, and only those', () => {
  const source = read('src/config.ts');
  const readByService = new Set([...source.matchAll(/(?:read|parse\w*)\(env, '([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1]!));
  const operations = read('docs/operations.md');
  const table = operations.slice(operations.indexOf('\n## Configuration'), operations.indexOf('\n## Commands'));
  const documented = new Set([...table.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]!));
  expect(readByService.size).toBeGreaterThan(30);
  expect([...readByService].filter((name) => !documented.has(name)).sort()).toEqual([]);
  expect([...documented].filter((name) => !readByService.has(name)).sort()).toEqual([]);
});
