// npm run bench:data [-- --scale 0.1]
// Loads the benchmark dataset through the importer (validation, encryption, the same writes as
// `npm run import`), as one document streamed from its generator. Embedded PostgreSQL in BENCH_DATA_DIR
// (default .data-bench), or DATABASE_URL.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { entities } from '../src/modules/entities.ts';
import { importDocument } from '../src/import/importer.ts';
import { ACROSS_TENANTS } from '../src/modules/common/tenant-scope.ts';
import { DeploymentSchema } from '../src/modules/deployments/deployment.entity.ts';
import { openSecretsKeys } from '../src/modules/secrets/secrets-key.ts';
import { refreshStatistics } from '../src/import/refresh-statistics.ts';
import { sizeAt } from './dataset.ts';
import { datasetDocument } from './dataset-document.ts';
import { benchEnvironment } from './bench-environment.ts';

const { values } = parseArgs({ options: { scale: { type: 'string', default: process.env.BENCH_SCALE ?? '1' } } });
const scale = Number(values.scale);
if (!(scale > 0 && scale <= 1)) throw new Error(`--scale must be in (0, 1]; got ${values.scale}`);
const size = sizeAt(scale);

Object.assign(process.env, benchEnvironment());
const config = loadConfig();
const database = await openDatabase(config, { entities, migrate: true, whenRunning: 'join' });
try {
  const cipher = await openSecretsKeys(config, database.orm.em.getConnection());
  const em = database.orm.em.fork();
  const existing = await em.count(DeploymentSchema, {}, ACROSS_TENANTS);
  if (existing === size.deployments) {
    console.log(`Dataset already loaded (${existing} deployments) in ${config.databaseUrl ? 'DATABASE_URL' : config.dataDir}`);
  } else {
    if (existing > 0) throw new Error(`the database holds ${existing} deployments, not ${size.deployments}: use an empty one (delete ${config.dataDir})`);
    const started = performance.now();
    await importDocument(database.orm.em, datasetDocument(size), cipher, {
      onProgress: ({ phase, records }) => {
        const seconds = (performance.now() - started) / 1000;
        process.stdout.write(`\r${phase}: ${records.deployments}/${size.deployments} deployments, ${seconds.toFixed(0)} s   `);
      },
    });
    console.log(`\nLoaded ${size.deployments} deployments, ${size.integrations} integrations in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    // The first page must not be planned from guesses (see src/import/refresh-statistics.ts).
    const analysing = performance.now();
    await refreshStatistics(database.orm.em);
    console.log(`Statistics refreshed (ANALYZE) in ${((performance.now() - analysing) / 1000).toFixed(1)} s`);
  }
} finally {
  await database.close();
}
