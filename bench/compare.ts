// npm run bench:compare -- <git ref> [--only <name part>,…] [--rounds 5] [--duration 6] [--connections 8]
// This checkout against another build (a commit, a branch, a tag) on the benchmark dataset (npm run bench:data
// first): the CPU the service process spends per request, and req/s, for a few scenarios, the two builds
// alternated round after round (the order swapped every round), each build's service started afresh each round.
// On a shared machine req/s follows the machine's minute more than the build; CPU per request much less, so it
// is what this compares. The other build runs from a git worktree (removed afterwards) with this checkout's
// node_modules, on the database as this checkout migrates it: a build whose dependencies or migrations differ is
// not compared faithfully. The write scenarios (bench/write-scenarios.ts, `--only REST create,PATCH,GraphQL create,
// GraphQL update`) write in the write tenant as npm run bench's do (bench/write-tenant.ts), made afresh for each
// build's turn and emptied afterwards.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, PROJECT_ROOT } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { entities } from '../src/modules/entities.ts';
import { secretsKeyFile } from '../src/modules/secrets/secrets-key.ts';
import { benchEnvironment } from './bench-environment.ts';
import { benchIds } from './dataset.ts';
import { issueBenchKeys, PRODUCTION_SERVICE_ENV } from './harness.ts';
import { scenarios } from './scenarios.ts';
import { load, median, startProcess, stopProcess, type LoadSample } from './service-load.ts';
import { writeScenarios } from './write-scenarios.ts';
import { emptyWriteTenant, finishWrites, prepareWritesFor } from './write-tenant.ts';

const DEFAULT_SCENARIOS = '__typename,light page (20,REST page of 100 (full';

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '6' },
    connections: { type: 'string', default: '8' },
    only: { type: 'string', default: DEFAULT_SCENARIOS },
  },
});
const [ref] = positionals;
if (!ref) throw new Error('usage: npm run bench:compare -- <git ref> [--only <name part>,…] [--rounds 5] [--duration 6] [--connections 8]');
const rounds = Number(options.rounds);
const duration = Number(options.duration);
const connections = Number(options.connections);

const git = (...args: string[]) => execFileSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();
const commit = git('rev-parse', '--short', `${ref}^{commit}`);
const here = `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? ' + uncommitted changes' : ''}`;

const patchPool: string[] = [];
const chosen = [...scenarios(benchIds()), ...writeScenarios(patchPool)].filter((s) => s.target === 'service' && options.only.split(',').some((part) => s.name.includes(part)));
if (chosen.length === 0) throw new Error(`no service scenario's name contains any of: ${options.only}`);

Object.assign(process.env, benchEnvironment());
const config = loadConfig();
// Both builds' services join one database: DATABASE_URL's, or the benchmark's embedded one, started here.
const database = await openDatabase(config, { entities, migrate: true, whenRunning: 'join' });
const worktree = fs.mkdtempSync(path.join(os.tmpdir(), `bench-compare-${commit}-`));
git('worktree', 'add', '--detach', worktree, commit);
fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(worktree, 'node_modules'), 'dir');

const builds = [{ name: commit, root: worktree }, { name: here, root: PROJECT_ROOT }];
const samples = new Map(builds.map((build) => [build.name, new Map(chosen.map((s) => [s.name, [] as LoadSample[]]))]));
const serviceEnv = {
  ...process.env, ...PRODUCTION_SERVICE_ENV, WORKERS: '1', DATABASE_URL: database.clientUrl, MIGRATE_ON_START: 'false',
  SECRETS_KEY: config.secretsKey?.toString('base64') ?? fs.readFileSync(secretsKeyFile(config), 'utf8').trim(),
};
// The machine's load (1, 5, 15 minutes) before and after: on a shared machine, what else ran meanwhile.
const loadAverage = () => { try { return fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '); } catch { return 'unknown'; } };
const loadBefore = loadAverage();
try {
  const keys = await issueBenchKeys(database, 'bench-compare');
  for (let round = 0; round < rounds; round++) {
    for (const build of round % 2 ? [...builds].reverse() : builds) {
      // Each build writes into the same write tenant, not one grown by the writes before it (they cost more as it
      // grew: 2.8 ms a create in the first round, 4.4 ms in the fifth): emptied, vacuumed, a new PATCH pool.
      if (patchPool.length) await emptyWriteTenant(database.orm.em, { vacuum: true });
      patchPool.length = 0;
      await prepareWritesFor(chosen, database, config, keys, patchPool);
      const service = await startProcess(['src/main.ts'], serviceEnv, /GraphQL ready at (http:\/\/\S+)\/graphql/, build.root);
      const url = service.match[1]!.replace('localhost', '127.0.0.1');
      try {
        // Warmed up (compiled, caches filled) before anything is counted.
        for (const scenario of chosen) await load(scenario, url, keys, 2, service.child.pid!, connections);
        for (const scenario of chosen) {
          process.stdout.write(`\rround ${round + 1}/${rounds}: ${build.name}, ${scenario.name.slice(0, 50).padEnd(50)}`);
          samples.get(build.name)!.get(scenario.name)!.push(await load(scenario, url, keys, duration, service.child.pid!, connections));
        }
      } finally {
        await stopProcess(service);
      }
    }
  }
  process.stdout.write('\n');
  const µs = (runs: LoadSample[]) => runs.map((run) => Math.round(run.cpuMsPerRequest * 1000));
  const perSecond = (runs: LoadSample[]) => runs.map((run) => Math.round(run.requestsPerSecond));
  const percent = (ratio: number) => `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(1)}%`;
  const rounded = (xs: number[]) => `${xs.join(', ')} (${median(xs)})`;
  // Each round ran the two builds one after the other: the change within each round, its median and its range.
  const paired = (before: number[], after: number[]) => {
    const changes = after.map((b, i) => b / before[i]! - 1);
    return `${percent(median(changes))} (${percent(Math.min(...changes))} to ${percent(Math.max(...changes))})`;
  };
  console.log(`\nService CPU per request (µs) and req/s, each round, then the median; ${rounds} rounds × ${duration} s, ${connections} connections; load average ${loadBefore} before, ${loadAverage()} after\n`);
  console.log(`| Scenario | ${commit}: CPU µs/req | ${here}: CPU µs/req | CPU change, paired: median (range) | ${commit}: req/s | ${here}: req/s | req/s change, paired |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const scenario of chosen) {
    const [before, after] = builds.map((build) => samples.get(build.name)!.get(scenario.name)!);
    console.log(`| ${scenario.name} | ${rounded(µs(before!))} | ${rounded(µs(after!))} | ${paired(µs(before!), µs(after!))} | ${rounded(perSecond(before!))} | ${rounded(perSecond(after!))} | ${paired(perSecond(before!), perSecond(after!))} |`);
  }
} finally {
  git('worktree', 'remove', '--force', worktree);
  await finishWrites(database.orm.em, patchPool);
  await database.close();
}
