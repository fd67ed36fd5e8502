// npm run schema   writes schema.graphql from the code (a test fails when the file drifts).
import fs from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ROOT } from '../config.ts';
import { printSchemaFile } from '../graphql/print-schema.ts';

const file = path.join(PROJECT_ROOT, 'schema.graphql');
await fs.writeFile(file, printSchemaFile());
console.log(`Wrote ${path.relative(process.cwd(), file) || file}`);
