// npm run import -- <file.json>   (docs/decisions.md#data-import)
// Streams the file: memory stays bounded whatever its size. On a terminal, progress is shown as it goes.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { entities } from '../modules/entities.ts';
import { importDocument, type ImportProgress } from '../import/importer.ts';
import { refreshStatistics } from '../import/refresh-statistics.ts';
import { openSecretsKeys } from '../modules/secrets/secrets-key.ts';
import { runCli, UsageError } from './run-cli.ts';

/** The progress line, rewritten in place on a terminal (and never written elsewhere: scripts read the summary). */
function progressLine(file: string, started: number) {
  if (!process.stderr.isTTY) return () => {};
  return ({ phase, records }: ImportProgress) => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? ` (${Math.round(records.deployments / seconds)} deployments/s)` : '';
    const what = phase === 'reading' ? `reading ${file}: ${records.deployments} deployments${rate}`
      : phase === 'finishing' ? `${records.deployments} deployments read, finishing`
      : `done: ${records.deployments} deployments in ${seconds.toFixed(1)} s${rate}`;
    process.stderr.write(`\r\x1b[K${what}${phase === 'done' ? '\n' : ''}`);
  };
}

await runCli(async (args) => {
  const file = args[0];
  if (!file || args.length > 1) throw new UsageError('usage: npm run import -- <file.json>');
  const config = loadConfig();
  // Opened before connecting: a missing file is reported without touching the database.
  const handle = await fs.promises.open(file).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${file}: ${error.code ?? error.message}`);
  });
  const database = await openDatabase(config, { entities, migrate: config.migrateOnStart });
  try {
    // Writes under the current key, and only if the keys also read what is already stored.
    const cipher = await openSecretsKeys(config, database.orm.em.getConnection());
    const show = progressLine(file, performance.now());
    let records: ImportProgress['records'] | undefined;
    const summary = await importDocument(database.orm.em, handle.createReadStream({ highWaterMark: 1 << 20 }), cipher, {
      onProgress: (progress) => {
        records = progress.records;
        show(progress);
      },
    });
    if (summary.created + summary.updated + summary.deleted > 0) await refreshStatistics(database.orm.em);
    const counts = `${records!.tenants} tenants, ${records!.integrations} integrations, ${records!.deployments} deployments`;
    const changes = summary.created + summary.updated + summary.deleted === 0
      ? 'no changes (already up to date)'
      : `${summary.created} rows created, ${summary.updated} updated, ${summary.deleted} deleted`;
    console.log(`Imported ${file} (${counts}): ${changes}`);
  } finally {
    await handle.close().catch(() => {});
    await database.close();
  }
});
