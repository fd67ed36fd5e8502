// npm run soak [-- --minutes 10 --connections 8 --sample-seconds 10 --warmup-seconds 20 --max-growth 1]
// Not part of CI. Starts the service as `npm run bench` does (NODE_ENV=production, the benchmark dataset in
// .data-bench or DATABASE_URL: `npm run bench:data` first; request logs and the rate limiter included). Checks
// every service scenario of bench/scenarios.ts once, warms up, then drives all of them as one mixed load
// (each connection cycles through the list) for the chosen time. Every sample interval it prints the
// interval's throughput, p99 and failures and the service's memory: RSS from /proc, and from its /metrics
// the V8 heap (used, committed) and the memory of Buffers outside it (external). At the end: requests,
// errors by kind, latency percentiles, memory at the start of the steady state and at the end, and the
// memory trend; the same goes to bench/results/soak-<date>.json.
// Exit code 1 on any error or a growth trend, 130 when interrupted (Ctrl-C stops the load and still reports).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { loadConfig, PROJECT_ROOT } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { entities } from '../src/modules/entities.ts';
import { benchEnvironment } from './bench-environment.ts';
import { benchIds } from './dataset.ts';
import { scenarios } from './scenarios.ts';
import { issueBenchKey, machineDescription, PRODUCTION_SERVICE_ENV, rssOf } from './harness.ts';

const { values: options } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    connections: { type: 'string', default: '8' },
    'sample-seconds': { type: 'string', default: '10' },
    'warmup-seconds': { type: 'string', default: '20' },
    /** MB per minute; see GROWTH below. */
    'max-growth': { type: 'string', default: '1' },
  },
});
function positive(name: string, integer: boolean): number {
  const value = Number(options[name as keyof typeof options]);
  if (!(value > 0) || (integer && !Number.isInteger(value))) throw new Error(`--${name} must be a positive ${integer ? 'integer' : 'number'}`);
  return value;
}
const durationSeconds = Math.round(positive('minutes', false) * 60);
const connections = positive('connections', true);
const sampleSeconds = positive('sample-seconds', true);
const warmupSeconds = positive('warmup-seconds', true);

// The growth verdict, per series (V8 heap used, and RSS), over the samples after the first 20% of the run
// (RSS still climbs for the first 10-20 s of load):
// - the least-squares slope is below --max-growth MB/min (default 1). At the 60-200 req/s this mix reaches on
//   the 2-core development machine, 1 MB/min is 90-290 bytes kept per request: a leak of one small object per
//   request shows. GC noise does not: under this load the heap swings between ~60 and ~320 MB every few
//   seconds, so the heap series is the lowest of the interval's readings (four a second), close to the live
//   heap after a collection. Per 10 s sample that floor varies by about 5 MB (sd), which over 8 minutes of
//   48 samples gives a slope uncertainty of about 0.35 MB/min: 1 MB/min is about three of those;
// - and the mean of the last third of those samples is at most 10% above the mean of the second third, which
//   catches a step up late in the run that a slope over the whole steady state would dilute.
// A slope needs time: a few MB of noise over one minute is a few MB/min. Below 4 minutes of steady state
// (runs under 5 minutes) or 9 samples the numbers are printed, but the verdict is INCONCLUSIVE.
const GROWTH = { maxMbPerMinute: positive('max-growth', false), steadyAfter: 0.2, maxThirdIncrease: 0.1, minSamples: 9, minSteadySeconds: 240 };
/** Memory readings: VmRSS from /proc and a /metrics scrape (about 2 ms of the service's time each). */
const POLL_MS = 250;

Object.assign(process.env, benchEnvironment());
const config = loadConfig();
const MB = 2 ** 20;

// Ctrl-C (or SIGTERM): stop the load and report what ran; a second one quits at once. The service runs in its
// own process group, so the terminal's Ctrl-C reaches it only through us, after the load has stopped.
let interrupted = false;
let stopLoad: (() => void) | undefined;
let service: ChildProcess | undefined;
const running = (child: ChildProcess | undefined): child is ChildProcess => !!child && child.exitCode === null && child.signalCode === null;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) {
      console.error(`\n${signal} again: stopping the service and quitting.`);
      process.exit(130);
    }
    interrupted = true;
    console.error(`\n${signal}: stopping the load (again to quit at once).`);
    stopLoad?.();
  });
}
process.on('exit', () => {
  if (running(service)) service.kill('SIGTERM');
});

// 1. Dataset present? A key for the big tenant without the secrets scope, as the benchmark's.
// The service's scenarios with the masked key (the secrets-revealing page needs the other key: not soaked).
const list = scenarios(benchIds()).filter((s) => s.target === 'service' && !s.readsSecrets);
let key: string;
{
  const database = await openDatabase(config, { entities, migrate: true, whenRunning: 'join' });
  try {
    key = await issueBenchKey(database, 'soak');
  } finally {
    await database.close();
  }
}
if (interrupted) process.exit(130);

// 2. The service as production runs it. Its output is read all along (a full pipe would block it): the last
//    lines are kept for a failure message, and log lines are counted by level.
const logLevels = new Map<string, number>();
const outputTail: string[] = [];
function startService(): Promise<{ child: ChildProcess; baseUrl: string; database: string }> {
  const env = { ...process.env, ...PRODUCTION_SERVICE_ENV };
  const child = spawn(process.execPath, ['src/main.ts'], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  service = child;
  return new Promise((resolve, reject) => {
    const onLine = (line: string) => {
      outputTail.push(line);
      if (outputTail.length > 30) outputTail.shift();
      const level = /^\{.*"level":"(\w+)"/.exec(line)?.[1];
      if (level) logLevels.set(level, (logLevels.get(level) ?? 0) + 1);
      const ready = /GraphQL ready at (http:\/\/\S+)\/graphql \(database: (.*)\)/.exec(line);
      if (ready) resolve({ child, baseUrl: ready[1]!.replace('localhost', '127.0.0.1'), database: ready[2]! });
    };
    for (const stream of [child.stdout!, child.stderr!]) {
      let partial = '';
      stream.setEncoding('utf8').on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop()!;
        lines.forEach(onLine);
      });
    }
    child.once('exit', (code, signal) => reject(new Error(`the service exited (${signal ?? code}):\n${outputTail.join('\n')}`)));
  });
}

async function stopService(child: ChildProcess): Promise<void> {
  if (!running(child)) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const patience = config.shutdownGraceMs + 30_000;
  const timer = setTimeout(() => {
    console.error(`The service did not stop ${patience / 1000} s after SIGTERM; killing it (its embedded PostgreSQL is stopped by the next start).`);
    child.kill('SIGKILL');
  }, patience);
  await exited;
  clearTimeout(timer);
}


/** The sum of every sample of one metric in Prometheus' text format (all label sets). */
function metric(text: string, name: string): number {
  let sum = 0;
  for (const match of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) sum += Number(match[1]);
  return sum;
}
async function scrape(baseUrl: string): Promise<string | undefined> {
  try {
    const response = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(5000) });
    return response.ok ? await response.text() : undefined;
  } catch {
    return undefined;
  }
}

const headers = { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json' };
const requests: autocannon.Request[] = list.map((s) => ({
  method: s.method, path: s.path, ...(s.body !== undefined && { body: s.body }), ...(s.headers && { headers: { ...headers, ...s.headers } }),
}));

interface LoadEvents {
  response?: (status: number, ms: number) => void;
  error?: (timeout: boolean) => void;
}
function load(baseUrl: string, seconds: number, events: LoadEvents = {}): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ url: baseUrl, connections, duration: seconds, headers, requests }, (error: unknown, result) => {
      stopLoad = undefined;
      if (error) reject(error);
      else resolve(result);
    });
    stopLoad = () => instance.stop();
    if (events.response) instance.on('response', (_client, status, _bytes, ms) => events.response!(status, ms));
    // autocannon reports a timeout as a reqError "request timed out" (and counts it in both errors and timeouts).
    if (events.error) instance.on('reqError', (error: Error) => events.error!(error?.message === 'request timed out'));
  });
}

async function checkScenarios(baseUrl: string): Promise<void> {
  for (const scenario of list) {
    const response = await fetch(`${baseUrl}${scenario.path}`, { method: scenario.method, body: scenario.body, headers });
    const body = await response.text();
    const graphqlErrors = scenario.path === '/graphql' && /"errors"\s*:/.test(body);
    if (!response.ok || graphqlErrors) throw new Error(`${scenario.name}: HTTP ${response.status} ${body.slice(0, 300)}`);
  }
}

interface Sample {
  seconds: number;
  requestsPerSecond: number;
  p99Ms: number | null;
  failed: number;
  rssMb: number;
  /** V8 heap used: at the end of the interval, and the lowest and highest of its readings. */
  heapUsedMb: number | null;
  heapLowMb: number | null;
  heapHighMb: number | null;
  /** V8 heap committed (what the heap holds from the system, used or not) and Buffer memory outside it, at the end of the interval. */
  heapCommittedMb: number | null;
  externalLowMb: number | null;
}

interface Trend {
  from: number;
  to: number;
  slopeMbPerMinute: number;
  secondThirdMb: number;
  lastThirdMb: number;
  ok: boolean;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** Least-squares slope (MB per minute) and the thirds comparison over the steady-state samples. */
function trend(points: { seconds: number; mb: number }[]): Trend {
  const xs = points.map((p) => p.seconds / 60);
  const ys = points.map((p) => p.mb);
  const mx = mean(xs);
  const my = mean(ys);
  const slope = xs.reduce((s, x, i) => s + (x - mx) * (ys[i]! - my), 0) / xs.reduce((s, x) => s + (x - mx) ** 2, 0);
  const third = Math.floor(points.length / 3);
  const secondThird = mean(ys.slice(third, 2 * third));
  const lastThird = mean(ys.slice(points.length - third));
  return {
    from: ys[0]!, to: ys.at(-1)!, slopeMbPerMinute: slope, secondThirdMb: secondThird, lastThirdMb: lastThird,
    ok: slope < GROWTH.maxMbPerMinute && lastThird <= secondThird * (1 + GROWTH.maxThirdIncrease),
  };
}

const clock = (seconds: number) => {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
};
const mb = (x: number | null) => (x === null || Number.isNaN(x) ? '?' : x.toFixed(0));

// 3. Check, warm up, soak.
const started = await startService();
const { child, baseUrl } = started;
const pid = child.pid!;
let stopping = false;
let serviceDied = false;
child.once('exit', (code, signal) => {
  if (stopping) return;
  serviceDied = true;
  console.error(`\nThe service exited during the run (${signal ?? code}):\n${outputTail.join('\n')}`);
  stopLoad?.();
});
let exitCode = 0;
try {
  const metricsAtStart = await scrape(baseUrl);
  if (metricsAtStart === undefined) console.warn('GET /metrics does not answer: heap readings and GraphQL error counts will be missing.');
  await checkScenarios(baseUrl);
  console.log(`Service pid ${pid} (database: ${started.database}); ${list.length} scenarios answer. Warming up ${warmupSeconds} s…`);
  const warmup = await load(baseUrl, warmupSeconds);
  if (serviceDied) throw new Error('the service exited during the warm-up');
  const warmupFailed = warmup.non2xx + warmup.errors;
  if (warmupFailed > 0) throw new Error(`warm-up: ${warmupFailed} failed requests of ${warmup.requests.total} (non-2xx ${warmup.non2xx}, errors ${warmup.errors})`);
  console.log(`Warm-up: ${warmup.requests.total} requests, ${warmup.requests.average.toFixed(0)} req/s, no errors.`);
  if (interrupted) throw new Error('interrupted during warm-up');

  console.log(`Soak: ${clock(durationSeconds)} of mixed load over ${connections} connections, a sample every ${sampleSeconds} s (memory read every ${POLL_MS} ms)\n`);
  console.log(' elapsed   req/s  p99 ms  failed   RSS MB  heap MB (low-high)  committed  external (low)');
  const samples: Sample[] = [];
  let interval = { responses: 0, failed: 0, latencies: [] as number[], rss: NaN, heap: [] as number[], committed: NaN, external: [] as number[] };
  let done = false;
  const soakStart = performance.now();
  const soak = load(baseUrl, durationSeconds, {
    response: (status, ms) => {
      interval.responses++;
      if (status < 200 || status > 299) interval.failed++;
      else interval.latencies.push(ms);
    },
    error: () => { interval.failed++; },
  }).finally(() => { done = true; });

  // Memory is read every POLL_MS (never in bursts to catch up after a slow scrape); a sample closes every
  // `sampleSeconds`, its rate over the time it actually covered.
  const poller = (async () => {
    let intervalStart = soakStart;
    let nextPoll = soakStart + POLL_MS;
    let nextSample = soakStart + sampleSeconds * 1000;
    while (!done) {
      const wait = nextPoll - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (done) break;
      const text = await scrape(baseUrl);
      interval.rss = rssOf(pid);
      if (text !== undefined) {
        interval.heap.push(metric(text, 'nodejs_heap_size_used_bytes'));
        interval.committed = metric(text, 'nodejs_heap_size_total_bytes');
        interval.external.push(metric(text, 'nodejs_external_memory_bytes'));
      }
      const now = performance.now();
      nextPoll = Math.max(nextPoll + POLL_MS, now);
      if (now < nextSample - POLL_MS / 2) continue;
      while (nextSample <= now + POLL_MS / 2) nextSample += sampleSeconds * 1000;
      const closed = interval;
      interval = { responses: 0, failed: 0, latencies: [], rss: NaN, heap: [], committed: NaN, external: [] };
      const latencies = closed.latencies.sort((a, b) => a - b);
      const sample: Sample = {
        seconds: Math.round((now - soakStart) / 1000), requestsPerSecond: closed.responses / ((now - intervalStart) / 1000),
        p99Ms: latencies.length ? Math.round(percentile(latencies, 99)) : null, failed: closed.failed, rssMb: closed.rss / MB,
        heapUsedMb: closed.heap.length ? closed.heap.at(-1)! / MB : null,
        heapLowMb: closed.heap.length ? Math.min(...closed.heap) / MB : null,
        heapHighMb: closed.heap.length ? Math.max(...closed.heap) / MB : null,
        heapCommittedMb: Number.isNaN(closed.committed) ? null : closed.committed / MB,
        externalLowMb: closed.external.length ? Math.min(...closed.external) / MB : null,
      };
      intervalStart = now;
      samples.push(sample);
      console.log(`${clock(sample.seconds).padStart(8)}  ${sample.requestsPerSecond.toFixed(0).padStart(6)}  ${String(sample.p99Ms ?? '-').padStart(6)}  ${String(sample.failed).padStart(6)}  ${mb(sample.rssMb).padStart(7)}  ${mb(sample.heapUsedMb).padStart(4)} (${mb(sample.heapLowMb)}-${mb(sample.heapHighMb)})`.padEnd(55) + `${mb(sample.heapCommittedMb).padStart(9)}  ${mb(sample.externalLowMb).padStart(13)}`);
    }
  })();
  const result = await soak;
  await poller;
  const soakSeconds = (performance.now() - soakStart) / 1000;
  const metricsAtEnd = await scrape(baseUrl);

  // 4. Summary.
  const socketErrors = result.errors - result.timeouts;
  const graphqlErrors = metricsAtStart !== undefined && metricsAtEnd !== undefined
    ? metric(metricsAtEnd, 'graphql_errors_total') - metric(metricsAtStart, 'graphql_errors_total') : null;
  const loggedErrors = (logLevels.get('error') ?? 0) + (logLevels.get('fatal') ?? 0);
  const errorCount = result.non2xx + result.errors + (graphqlErrors ?? 0) + loggedErrors + (serviceDied ? 1 : 0);
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count ?? 0]));
  const requestsPerSecond = result.requests.total / soakSeconds;

  const steadyFrom = GROWTH.steadyAfter * durationSeconds;
  const steady = samples.filter((s) => s.seconds > steadyFrom);
  const heapPoints = steady.filter((s) => s.heapLowMb !== null).map((s) => ({ seconds: s.seconds, mb: s.heapLowMb! }));
  const rssPoints = steady.filter((s) => !Number.isNaN(s.rssMb)).map((s) => ({ seconds: s.seconds, mb: s.rssMb }));
  const steadySpan = steady.length ? steady.at(-1)!.seconds - steadyFrom : 0;
  const externalPoints = steady.filter((s) => s.externalLowMb !== null).map((s) => ({ seconds: s.seconds, mb: s.externalLowMb! }));
  const memory = heapPoints.length >= 3 && rssPoints.length >= 3
    ? { heapUsed: trend(heapPoints), ...(externalPoints.length >= 3 && { external: trend(externalPoints) }), rss: trend(rssPoints) }
    : undefined;
  // Not judged (V8 keeps what its peaks needed), shown because RSS follows it.
  const committedPoints = steady.filter((s) => s.heapCommittedMb !== null).map((s) => ({ seconds: s.seconds, mb: s.heapCommittedMb! }));
  const committed = committedPoints.length >= 3 ? trend(committedPoints) : undefined;
  const conclusive = !!memory && Math.min(heapPoints.length, rssPoints.length) >= GROWTH.minSamples && steadySpan >= GROWTH.minSteadySeconds;
  const growing = memory ? Object.entries(memory).filter(([, t]) => !t.ok).map(([name]) => name) : [];
  const verdict = !conclusive
    ? `INCONCLUSIVE: a trend needs at least ${GROWTH.minSteadySeconds / 60} minutes and ${GROWTH.minSamples} samples after the first ${GROWTH.steadyAfter * 100}% (here ${clock(steadySpan)}, ${Math.min(heapPoints.length, rssPoints.length)} samples): run at least ${(GROWTH.minSteadySeconds / 60 / (1 - GROWTH.steadyAfter)).toFixed(0)} minutes`
    : growing.length ? `GROWTH (${growing.join(', ')})` : 'no growth trend';
  const failedGrowth = conclusive && growing.length > 0;

  const machine = machineDescription();
  const settings = `${clock(durationSeconds)} of mixed load (${list.length} scenarios, each connection cycling through them), ${connections} connections, ${warmupSeconds} s warm-up, a sample every ${sampleSeconds} s`;
  const bytesPerRequest = (GROWTH.maxMbPerMinute * MB) / (requestsPerSecond * 60);
  console.log([
    '',
    `${interrupted ? 'INTERRUPTED after' : 'Soak of'} ${clock(soakSeconds)} on ${machine}`,
    `Settings: ${settings}`,
    `Requests: ${result.requests.total} (${requestsPerSecond.toFixed(1)} req/s)`,
    `Errors: ${errorCount} — non-2xx ${result.non2xx}, socket errors ${socketErrors}, timeouts ${result.timeouts}, GraphQL errors ${graphqlErrors ?? '? (no /metrics)'}, service log errors ${loggedErrors} (warnings ${logLevels.get('warn') ?? 0})${serviceDied ? '; the service EXITED during the run' : ''}`,
    `Status codes: ${JSON.stringify(statusCodes)}`,
    `Latency ms (2xx): p50 ${result.latency.p50}  p90 ${result.latency.p90}  p99 ${result.latency.p99}  max ${result.latency.max}`,
    memory
      ? [
          `Memory after the first ${GROWTH.steadyAfter * 100}% (from ${clock(steady[0]!.seconds)}, ${steady.length} samples), threshold ${GROWTH.maxMbPerMinute} MB/min (≈ ${bytesPerRequest.toFixed(0)} B per request at this rate) and last third ≤ second third + ${GROWTH.maxThirdIncrease * 100}%:`,
          ...Object.entries(memory).map(([name, t]) => `  ${({ rss: 'RSS', external: 'external (low)', heapUsed: 'heap used (low)' }[name] ?? name).padEnd(16)} ${t.from.toFixed(1)} → ${t.to.toFixed(1)} MB (${(t.to - t.from >= 0 ? '+' : '') + (t.to - t.from).toFixed(1)}), slope ${t.slopeMbPerMinute.toFixed(2)} MB/min, second third ${t.secondThirdMb.toFixed(1)}, last third ${t.lastThirdMb.toFixed(1)} MB (${((t.lastThirdMb / t.secondThirdMb - 1) * 100).toFixed(1)}%): ${t.ok ? 'ok' : conclusive ? 'GROWTH' : 'over the limits'}`),
          ...(committed ? [`  (heap committed ${committed.from.toFixed(1)} → ${committed.to.toFixed(1)} MB, slope ${committed.slopeMbPerMinute.toFixed(2)} MB/min: not judged; V8 keeps the pages its peaks needed, and RSS includes them)`] : []),
        ].join('\n')
      : `Memory: ${samples.length ? `RSS ${mb(samples[0]!.rssMb)} → ${mb(samples.at(-1)!.rssMb)} MB, heap used (low) ${mb(samples[0]!.heapLowMb)} → ${mb(samples.at(-1)!.heapLowMb)} MB` : 'no samples'}`,
    `Verdict: ${errorCount > 0 ? `${errorCount} ERRORS; ` : 'no errors; '}${verdict}`,
  ].join('\n'));

  const dir = path.join(PROJECT_ROOT, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  fs.writeFileSync(path.join(dir, `soak-${stamp}.json`), JSON.stringify({
    date: new Date().toISOString(), machine, settings, interrupted, database: started.database,
    scenarios: list.map((s) => s.name), seconds: soakSeconds,
    requests: result.requests.total, requestsPerSecond,
    errors: { total: errorCount, non2xx: result.non2xx, socketErrors, timeouts: result.timeouts, graphqlErrors, serviceLogErrors: loggedErrors, serviceLogWarnings: logLevels.get('warn') ?? 0, serviceExited: serviceDied },
    statusCodes,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, p99_9: result.latency.p99_9, max: result.latency.max },
    growth: { ...GROWTH, steadyFromSeconds: steadyFrom, steadySeconds: steadySpan, memory: memory ?? null, verdict },
    samples,
  }, null, 2));
  console.log(`Wrote bench/results/soak-${stamp}.json`);
  exitCode = interrupted ? 130 : errorCount > 0 || failedGrowth ? 1 : 0;
} catch (error) {
  if (!interrupted) throw error;
  console.error(error instanceof Error ? error.message : error);
  exitCode = 130;
} finally {
  stopping = true;
  await stopService(child);
}
process.exit(exitCode);
