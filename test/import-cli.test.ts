// `npm run import` as an operator runs it: it loads the document, refreshes the planner's statistics (so the
// first pages are not planned from guesses on a server without autovacuum), refuses a key that cannot read the
// stored secrets before writing anything, and says when there was nothing to change.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runNode } from './support/service-process.ts';
import { FIXTURE_PATH } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
const key = randomBytes(32).toString('base64');
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.drop());

function importCli(secretsKey: string): Promise<{ code: number | null; output: string }> {
  const child = runNode('src/cli/import.ts', [fileURLToPath(FIXTURE_PATH)], { DATABASE_URL: db.url, SECRETS_KEY: secretsKey });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })));
}

const analysed = () => db.query<{ relname: string }>(
  `select relname from pg_stat_user_tables where relname in ('deployment', 'secret', 'deployment_tag_value') and last_analyze is not null order by 1`);

it('imports, then refreshes the statistics of what it wrote', { timeout: 60_000 }, async () => {
  expect(await analysed()).toEqual([]);
  const first = await importCli(key);
  expect(first.code, first.output).toBe(0);
  expect(first.output).toMatch(/^Imported .*full-import\.json \(2 tenants, 2 integrations, 2 deployments\): \d+ rows created, 0 updated, 0 deleted\n$/);
  expect((await analysed()).map((row) => row.relname)).toEqual(['deployment', 'deployment_tag_value', 'secret']);
});

it('refuses, writing nothing, a key that cannot read the stored secrets', { timeout: 60_000 }, async () => {
  const before = await db.query('select id, value_ciphertext, key_fingerprint from secret order by id');
  const other = await importCli(randomBytes(32).toString('base64'));
  expect(other.code).toBe(1);
  expect(other.output).toMatch(/^error: The configured secrets key cannot read the stored secrets: the database holds 3 secrets under key [0-9a-f]{16}, but SECRETS_KEY \(from the environment\) is key [0-9a-f]{16}; /);
  expect(await db.query('select id, value_ciphertext, key_fingerprint from secret order by id')).toEqual(before);
});

it('says when the document changes nothing', { timeout: 60_000 }, async () => {
  const again = await importCli(key);
  expect(again.code, again.output).toBe(0);
  expect(again.output).toMatch(/: no changes \(already up to date\)\n$/);
});
