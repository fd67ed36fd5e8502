import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config.ts';
import { printSchemaFile } from '../src/graphql/print-schema.ts';

describe('schema.graphql', () => {
  it('is what the code generates (run `npm run schema:print` after changing the schema)', () => {
    const committed = fs.readFileSync(path.join(PROJECT_ROOT, 'schema.graphql'), 'utf8');
    expect(committed).toBe(printSchemaFile());
  });
});
