// npm run bench [-- --rounds 3 --duration 5 --connections 8 --scaling 1,8,64 --workers auto --only <name part>,…
//                   --subscriptions 100 --queue 2000 --upload-mib 100]
// Starts the service in production mode on the benchmark dataset (npm run bench:data first), counts the SQL
// statements and the bytes read from PostgreSQL of each scenario, then drives load with autocannon from this
// process, scenario after scenario, round after round (interleaved, so machine drift spreads over all of
// them), against the service and the ceilings (bench/ceiling.ts: a bare node:http floor, pg + JSON.stringify
// pages, PostgreSQL-built JSON). Then the connection-scaling table: the light and full pages and their
// ceilings at each connection count. Then the workers table: the full page on the service as started above (one
// worker) and on a second one with WORKERS=auto (--workers; '' skips it), interleaved the same way. Prints the
// tables and writes them as JSON to bench/results/. The write scenarios (bench/write-scenarios.ts) write in a tenant
// of their own, emptied before and after them (bench/write-tenant.ts): the reads' data stay as loaded.
// Last, the revision lifecycle's group (bench/lifecycle.ts, in a tenant of its own too): report → event on a
// client with `--subscriptions` revisionUpdated subscriptions open, and claims per second with one and two data
// planes from a queue of `--queue` revisions. `--only` runs it when a part is in "lifecycle".
// Then source uploads (bench/upload.ts, in a tenant of its own): one PUT of `--upload-mib` MiB through the built-in
// object store against copying the file on the same disk, and the service's memory during it. `--only upload`.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, PROJECT_ROOT } from '../src/config.ts';
import { openSecretsKeys, secretsKeyFile } from '../src/modules/secrets/secrets-key.ts';
import { keyFingerprint } from '../src/modules/secrets/key-fingerprint.ts';
import { openDatabase } from '../src/db/database.ts';
import { entities } from '../src/modules/entities.ts';
import { benchEnvironment } from './bench-environment.ts';
import { benchIds, tenantId } from './dataset.ts';
import { issueBenchKeys, machineDescription, PRODUCTION_SERVICE_ENV, serviceCpuSeconds, type BenchKeys } from './harness.ts';
import { load as loadScenario, median, startProcess, stopProcess, type LoadSample } from './service-load.ts';
import { FULL_PAGE, scenarios, type Scenario } from './scenarios.ts';
import { conditionalScenarios, issueChangedPageKey } from './conditional-scenarios.ts';
import { writeScenarios } from './write-scenarios.ts';
import { formatLifecycleTables, measureLifecycle, type LifecycleResult } from './lifecycle.ts';
import { formatUploadTable, measureUpload, type UploadResult } from './upload.ts';
import { finishWrites, prepareWritesFor, WRITES_TENANT } from './write-tenant.ts';
import { countStatements, type RequestCost } from './statement-count.ts';
import { rawRequest } from '../test/support/raw-http.ts';
import { formatConditionalTable, formatScalingTable, formatTable, formatWorkersTable, type ScalingResult, type ScenarioResult, type WorkersResult } from './report.ts';

const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '8' },
    scaling: { type: 'string', default: '1,8,64' },
    // WORKERS of the second service the workers table compares with one worker; '' leaves the table out.
    workers: { type: 'string', default: 'auto' },
    // Only the scenarios whose names contain one of these (comma-separated), with the ceilings they compare with.
    only: { type: 'string', default: '' },
    // The lifecycle group: revisionUpdated subscriptions open, and the claims' queue.
    subscriptions: { type: 'string', default: '100' },
    queue: { type: 'string', default: '2000' },
    // The upload group: the archive's size.
    'upload-mib': { type: 'string', default: '100' },
  },
});
const scalingConnections = options.scaling.split(',').filter(Boolean).map(Number);
const rounds = Number(options.rounds);
const duration = Number(options.duration);
const connections = Number(options.connections);

const env = { ...process.env, ...benchEnvironment() };
Object.assign(process.env, benchEnvironment());
const config = loadConfig();
const secretsKey = config.secretsKey?.toString('base64') ?? fs.readFileSync(secretsKeyFile(config), 'utf8').trim();

const start = (args: string[], extraEnv: Record<string, string>, ready: RegExp) => startProcess(args, { ...env, ...extraEnv }, ready);
const load = (scenario: Scenario, baseUrl: string, keys: BenchKeys, seconds: number, pid: number, concurrent = connections, failures: 'throw' | 'count' = 'throw') =>
  loadScenario(scenario, baseUrl, keys, seconds, pid, concurrent, failures);

// 1. Dataset present? A key for the big tenant (without the secrets scope: values are masked, as for most
//    legacy clients); with writes, the write tenant, its key and the PATCH pool; statement counts per scenario,
//    in-process, through the same app.
const ids = benchIds();
const patchPool: string[] = [];
const every = [...scenarios(ids), ...conditionalScenarios(FULL_PAGE), ...writeScenarios(patchPool)];
const wanted = options.only.split(',').filter(Boolean);
const chosen = wanted.length ? every.filter((s) => wanted.some((part) => s.name.includes(part))) : every;
// With what they compare with, and what that compares with (the conditional pages' page, and its ceiling).
const compareWith = (s: Scenario | undefined) => s && every.find((c) => c.name === s.ceiling);
const list = every.filter((s) => chosen.some((c) => c === s || compareWith(c) === s || compareWith(compareWith(c)) === s));
const lifecycleWanted = !wanted.length || wanted.some((part) => 'lifecycle'.includes(part));
const uploadWanted = !wanted.length || wanted.some((part) => 'upload'.includes(part));
let keys: BenchKeys;
let costs: Map<string, RequestCost>;
{
  const database = await openDatabase(config, { entities, migrate: true, whenRunning: 'join' });
  try {
    keys = await issueBenchKeys(database, 'bench');
    await prepareWritesFor(list, database, config, keys, patchPool);
    if (list.some((s) => s.changesPage)) keys.pageWriter = await issueChangedPageKey(database.orm.em);
    costs = await countStatements(database.clientUrl, config, keys, list.filter((s) => s.target === 'service'));
  } finally {
    await database.close();
  }
}

// 2. The service as production runs it, and the ceiling beside it.
const service = await start(['src/main.ts'], { ...PRODUCTION_SERVICE_ENV, WORKERS: '1' }, /GraphQL ready at (http:\/\/\S+)\/graphql/);
const serviceUrl = service.match[1]!.replace('localhost', '127.0.0.1');
const joined = await openDatabase(config, { entities, migrate: false, whenRunning: 'join' });
const ceiling = await start(['bench/ceiling.ts', joined.clientUrl, tenantId(0), WRITES_TENANT], {
  CEILING_SECRETS_KEY: secretsKey, CEILING_KEY_FINGERPRINT: keyFingerprint(Buffer.from(secretsKey, 'base64')),
}, /listening (\d+)/);
const ceilingUrl = `http://127.0.0.1:${ceiling.match[1]}`;
// The same service with several workers, on the same database (which the first one may own: it joins by URL).
const compared = options.workers ? list.filter((s) => s.workers) : [];
const manyWorkers = compared.length ? await start(['src/main.ts'], {
  ...PRODUCTION_SERVICE_ENV, WORKERS: options.workers, DATABASE_URL: joined.clientUrl,
  SECRETS_KEY: secretsKey,
}, /GraphQL ready at (http:\/\/\S+)\/graphql \(database: [^,)]+(?:, (\d+) workers)?\)/) : undefined;
const manyWorkersUrl = manyWorkers?.match[1]!.replace('localhost', '127.0.0.1');
const urlOf = (s: Scenario) => (s.target === 'ceiling' ? ceilingUrl : serviceUrl);
const pidOf = (s: Scenario) => (s.target === 'ceiling' ? ceiling.child.pid! : service.child.pid!);

/** Bytes a ceiling reads from PostgreSQL for one request of the scenario (its pool's sockets, before and after), and sends. */
async function ceilingBytes(scenario: Scenario): Promise<Omit<RequestCost, 'statements'>> {
  const read = async () => Number(await (await fetch(`${ceilingUrl}/__bytes`)).text());
  const before = await read();
  const { path, body: sent } = scenario.request?.() ?? scenario;
  const { body } = await rawRequest(`${ceilingUrl}${path}`, { method: scenario.method, body: sent, headers: { 'content-type': 'application/json' } });
  return { bytesFromPostgres: (await read()) - before, responseBytes: body.length };
}

try {
  for (const scenario of list.filter((s) => s.target === 'ceiling')) {
    costs.set(scenario.name, { statements: scenario.statements ?? NaN, ...await ceilingBytes(scenario) });
  }
  console.log(`Warming up ${list.length} scenarios…`);
  for (const scenario of list) await load(scenario, urlOf(scenario), keys, 2, pidOf(scenario));
  // Each worker compiles (JIT) its code on its own: the service of several workers is warmed up for as long as
  // the single process will have been when the workers table runs (its warm-up and the rounds), times its workers.
  const manyWorkersCount = Number(manyWorkers?.match[2] ?? 1);
  for (const scenario of manyWorkers ? compared : []) {
    await load(scenario, manyWorkersUrl!, keys, (2 + rounds * duration) * manyWorkersCount, manyWorkers!.child.pid!);
  }
  const samples = new Map(list.map((s) => [s.name, [] as LoadSample[]]));
  for (let round = 0; round < rounds; round++) {
    // Rotate the order each round so no scenario always runs first or last.
    const order = list.map((_, i) => list[(i + round) % list.length]!);
    for (const scenario of order) {
      samples.get(scenario.name)!.push(await load(scenario, urlOf(scenario), keys, duration, pidOf(scenario)));
      process.stdout.write(`\rround ${round + 1}/${rounds}: ${scenario.name.padEnd(60)}`);
    }
  }
  process.stdout.write('\n');
  const rpsOf = (name: string) => median(samples.get(name)!.map((s) => s.requestsPerSecond));
  const results: ScenarioResult[] = list.map((scenario) => {
    const runs = samples.get(scenario.name)!;
    const rps = rpsOf(scenario.name);
    const cost = costs.get(scenario.name)!;
    return {
      scenario: scenario.name, requestsPerSecond: rps, p50Ms: median(runs.map((r) => r.p50)), p99Ms: median(runs.map((r) => r.p99)),
      sqlStatements: cost.statements, ...(cost.roundTrips !== undefined && { roundTrips: cost.roundTrips }), bytesFromPostgres: cost.bytesFromPostgres, responseBytes: cost.responseBytes, peakRssMb: Math.max(...runs.map((r) => r.rss)) / 2 ** 20,
      cpuMsPerRequest: median(runs.map((r) => r.cpuMsPerRequest)),
      ceiling: scenario.ceiling, ofCeiling: rps / rpsOf(scenario.ceiling),
      ...(runs[0]!.otherP50 !== undefined && { otherP50Ms: median(runs.map((r) => r.otherP50!)), otherP99Ms: median(runs.map((r) => r.otherP99!)) }),
      rounds: runs.map((r) => ({ requestsPerSecond: r.requestsPerSecond, cpuMsPerRequest: r.cpuMsPerRequest })),
    };
  });

  // Connection scaling: interleaved as above, at each connection count; failures are counted, not fatal.
  const scaled = list.filter((s) => s.scaling);
  const scalingSamples = new Map(scaled.flatMap((s) => scalingConnections.map((c) => [`${s.name}@${c}`, [] as LoadSample[]])));
  for (let round = 0; round < rounds; round++) {
    for (const concurrent of scalingConnections) {
      for (const scenario of scaled) {
        scalingSamples.get(`${scenario.name}@${concurrent}`)!.push(await load(scenario, urlOf(scenario), keys, duration, pidOf(scenario), concurrent, 'count'));
        process.stdout.write(`\rscaling round ${round + 1}/${rounds}: ${concurrent} connections, ${scenario.name.padEnd(50)}`);
      }
    }
  }
  process.stdout.write('\n');
  const scaling: ScalingResult[] = scaled.map((scenario) => ({
    scenario: scenario.name,
    byConnections: scalingConnections.map((concurrent) => {
      const runs = scalingSamples.get(`${scenario.name}@${concurrent}`)!;
      return {
        connections: concurrent, requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
        p50Ms: median(runs.map((r) => r.p50)), p99Ms: median(runs.map((r) => r.p99)), failed: runs.reduce((sum, r) => sum + r.failed, 0),
      };
    }),
  }));

  // Workers: one worker and several, interleaved as above.
  const workersSamples = new Map(compared.map((s) => [s.name, { one: [] as LoadSample[], many: [] as LoadSample[] }]));
  for (let round = 0; round < rounds && manyWorkers; round++) {
    for (const scenario of compared) {
      const samples = workersSamples.get(scenario.name)!;
      const runs = [
        async () => samples.one.push(await load(scenario, serviceUrl, keys, duration, service.child.pid!, connections, 'count')),
        async () => samples.many.push(await load(scenario, manyWorkersUrl!, keys, duration, manyWorkers.child.pid!, connections, 'count')),
      ];
      for (const run of round % 2 ? runs.reverse() : runs) await run();
      process.stdout.write(`\rworkers round ${round + 1}/${rounds}: ${scenario.name.padEnd(50)}`);
    }
  }
  const summary = (runs: LoadSample[]) => ({
    requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)), p99Ms: median(runs.map((r) => r.p99)),
    cpuMsPerRequest: median(runs.map((r) => r.cpuMsPerRequest)), failed: runs.reduce((sum, r) => sum + r.failed, 0),
  });
  const workers: WorkersResult[] = manyWorkers ? compared.map((scenario) => ({
    scenario: scenario.name, workers: manyWorkersCount, one: summary(workersSamples.get(scenario.name)!.one), many: summary(workersSamples.get(scenario.name)!.many),
  })) : [];

  // The revision lifecycle, on the service of one worker (its SUBSCRIPTIONS_PER_KEY and REVISION_LEASE_SECONDS: the
  // bench's environment's).
  let lifecycle: LifecycleResult | undefined;
  if (lifecycleWanted) {
    const cipher = await openSecretsKeys(config, joined.orm.em.getConnection());
    lifecycle = await measureLifecycle(serviceUrl, joined.orm.em, cipher, {
      subscriptions: Number(options.subscriptions), queue: Number(options.queue), rounds, fanOutRevisions: 5,
      subscriptionsPerKey: config.subscriptionsPerKey, leaseSeconds: config.revisionLeaseSeconds, serviceCpuSeconds: () => serviceCpuSeconds(service.child.pid!),
    }, (line) => process.stdout.write(`\r${line.padEnd(80)}`));
    process.stdout.write('\n');
  }

  // Source uploads, on the same service: its built-in store keeps objects under the DATA_DIR both were given
  // (benchEnvironment), where the archive and its copies are written too.
  let upload: UploadResult | undefined;
  if (uploadWanted && config.objectStorage.kind !== 'embedded') console.log('Source uploads: skipped (S3_BUCKET is set: the bytes would not pass through the service)');
  else if (uploadWanted) {
    upload = await measureUpload(serviceUrl, joined.orm.em, { dataDir: config.dataDir, servicePid: service.child.pid!, megabytes: Number(options['upload-mib']), rounds },
      (line) => process.stdout.write(`\r${line.padEnd(80)}`));
    process.stdout.write('\n');
  }

  const machine = machineDescription();
  const settings = `${rounds} rounds × ${duration} s per scenario, ${connections} connections, median of rounds`;
  if (results.length) console.log(formatTable(results, machine, settings));
  else console.log(`Machine: ${machine}`);
  const conditional = formatConditionalTable(results, every.filter((s) => s.plan).map((s) => s.name));
  if (conditional) console.log(`\n${conditional}`);
  if (scalingConnections.length && scaling.length) console.log(`\n${formatScalingTable(scaling)}`);
  if (workers.length) console.log(`\n${formatWorkersTable(workers, connections)}`);
  if (lifecycle) console.log(`\n${formatLifecycleTables(lifecycle)}`);
  if (upload) console.log(`\n${formatUploadTable(upload)}`);
  const dir = path.join(PROJECT_ROOT, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const json = JSON.stringify({ date: new Date().toISOString(), machine, settings, results, scaling, workers, lifecycle, upload }, null, 2);
  // A partial run (--only) is a comparison, not the latest result of the benchmark: it goes beside it.
  const name = wanted.length ? `partial-${stamp}.json` : `${stamp}.json`;
  fs.writeFileSync(path.join(dir, name), json);
  if (!wanted.length) fs.writeFileSync(path.join(dir, 'latest.json'), json);
  console.log(`Wrote bench/results/${name}`);
} finally {
  // Waited for: a write it has in flight commits before the write tenant is emptied.
  await stopProcess(ceiling);
  // Before the first service, which may own the (embedded) database the second one uses.
  if (manyWorkers) {
    manyWorkers.child.kill('SIGTERM');
    await new Promise((resolve) => manyWorkers.child.once('exit', resolve));
  }
  service.child.kill('SIGTERM');
  await new Promise((resolve) => service.child.once('exit', resolve));
  await finishWrites(joined.orm.em, patchPool);
  // The changed page's writes updated rows of the tables the reads measure (in another tenant): no dead rows left.
  if (keys.pageWriter) await joined.orm.em.getConnection().execute('vacuum deployment, secret, revision');
  await joined.close();
}
