// npm run bench:import [-- --deployments 100000]
// The import's throughput and memory: writes the benchmark dataset (dataset.ts) with the given number of
// deployments to a file, then runs `npm run import` on it, as an operator would, into a new empty database,
// and prints deployments/s and the import process's peak RSS. The database is made on the benchmark's server
// (DATABASE_URL's, or the embedded one in BENCH_DATA_DIR) as import_bench_<pid>, and dropped afterwards with
// the file.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig, PROJECT_ROOT } from '../src/config.ts';
import { createDatabaseIfMissing } from '../src/db/database.ts';
import { startEmbeddedPostgres, type RunningPostgres } from '../src/db/embedded-postgres.ts';
import { sizeAt } from './dataset.ts';
import { datasetDocument } from './dataset-document.ts';
import { benchEnvironment } from './bench-environment.ts';
import { machineDescription } from './harness.ts';

const { values } = parseArgs({ options: { deployments: { type: 'string', default: '100000' } } });
const deployments = Number(values.deployments);
if (!(Number.isInteger(deployments) && deployments >= 1000)) throw new Error(`--deployments must be a whole number from 1000; got ${values.deployments}`);

/** Peak resident memory of a running process (VmHWM), in bytes. */
function peakRssOf(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;
  } catch {
    return NaN;
  }
}

/** Runs a CLI of the project; resolves with its output, its wall time and its peak RSS (sampled until it exits). */
function runCli(script: string, args: string[], env: Record<string, string>) {
  const started = performance.now();
  const child = spawn(process.execPath, [script, ...args], { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let peak = 0;
  const sample = setInterval(() => (peak = Math.max(peak, peakRssOf(child.pid!) || 0)), 20);
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise<{ output: string; seconds: number; peakRss: number }>((resolve, reject) => {
    child.once('exit', (code) => {
      clearInterval(sample);
      if (code === 0) resolve({ output, seconds: (performance.now() - started) / 1000, peakRss: peak });
      else reject(new Error(`${script} exited with ${code}:\n${output}`));
    });
  });
}

Object.assign(process.env, benchEnvironment());
const config = loadConfig();
let embedded: RunningPostgres | undefined;
let maintenanceUrl = config.databaseUrl;
if (!maintenanceUrl) {
  embedded = await startEmbeddedPostgres({ clusterDir: path.join(config.dataDir, 'postgres'), port: config.embeddedPostgresPort, whenRunning: 'join' });
  maintenanceUrl = embedded.databaseUrl('postgres');
}
const scratch = `import_bench_${process.pid}`;
const scratchUrl = Object.assign(new URL(maintenanceUrl), { pathname: `/${scratch}` }).toString();
const file = path.join(os.tmpdir(), `${scratch}.json`);
const env = { DATABASE_URL: scratchUrl, SECRETS_KEY: config.secretsKey?.toString('base64') ?? randomBytes(32).toString('base64') };
try {
  const generating = performance.now();
  await pipeline(Readable.from(datasetDocument(sizeAt(deployments / 100_000))), fs.createWriteStream(file));
  const megabytes = fs.statSync(file).size / 2 ** 20;
  console.log(`Wrote ${deployments} deployments to ${file} (${megabytes.toFixed(0)} MB) in ${((performance.now() - generating) / 1000).toFixed(0)} s`);
  await createDatabaseIfMissing(maintenanceUrl, scratch);
  await runCli('src/cli/migrate.ts', ['up'], env);
  const run = await runCli('src/cli/import.ts', [file], env);
  console.log(run.output.trim());
  console.log(`\nMachine: ${machineDescription()}`);
  console.log('| Import | deployments | document | seconds | deployments/s | peak RSS MB |');
  console.log('|---|---:|---:|---:|---:|---:|');
  console.log(`| npm run import, empty database | ${deployments} | ${megabytes.toFixed(0)} MB | ${run.seconds.toFixed(1)} | `
    + `${Math.round(deployments / run.seconds)} | ${(run.peakRss / 2 ** 20).toFixed(0)} |`);
} finally {
  fs.rmSync(file, { force: true });
  const admin = new pg.Client({ connectionString: maintenanceUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${admin.escapeIdentifier(scratch)} with (force)`).finally(() => admin.end());
  await embedded?.stop();
}
