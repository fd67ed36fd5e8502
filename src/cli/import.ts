// npm run import -- <file.json>   (docs/decisions.md#data-import)
import fs from 'node:fs/promises';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { importDocument } from '../import/importer.ts';
import { parseImportDocument } from '../import/parse-document.ts';
import { refreshStatistics } from '../import/refresh-statistics.ts';
import { openSecretsKeys } from '../modules/secrets/secrets-key.ts';
import { runCli, UsageError } from './run-cli.ts';

await runCli(async (args) => {
  const file = args[0];
  if (!file || args.length > 1) throw new UsageError('usage: npm run import -- <file.json>');
  const config = loadConfig();
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  // Everything that can be checked without the database is checked before connecting to it.
  const document = parseImportDocument(text);
  const database = await openDatabase(config, { migrate: config.migrateOnStart });
  try {
    // Writes under the current key, and only if the keys also read what is already stored.
    const cipher = await openSecretsKeys(config, database.orm.em.getConnection());
    const summary = await importDocument(database.orm.em, document, cipher);
    if (summary.created + summary.updated + summary.deleted > 0) await refreshStatistics(database.orm.em);
    const counts = `${document.tenants.length} tenants, ${document.integrations.length} integrations, ${document.deployments.length} deployments`;
    const changes = summary.created + summary.updated + summary.deleted === 0
      ? 'no changes (already up to date)'
      : `${summary.created} rows created, ${summary.updated} updated, ${summary.deleted} deleted`;
    console.log(`Imported ${file} (${counts}): ${changes}`);
  } finally {
    await database.close();
  }
});
