// What `npm run bench` and `npm run bench:compare` share: starting a process of the service (or a ceiling) and
// reading its ready line, and driving one scenario at it with autocannon while measuring the process's CPU.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import autocannon from 'autocannon';
import { PROJECT_ROOT } from '../src/config.ts';
import { keyFor, rssOf, serviceCpuSeconds, type BenchKeys } from './harness.ts';
import type { Scenario } from './scenarios.ts';

export interface StartedProcess {
  child: ChildProcess;
  match: RegExpExecArray;
}

/** `node <args>` in `cwd` (this checkout by default), resolved with the first match of `ready` in its output. */
export function startProcess(args: string[], env: NodeJS.ProcessEnv, ready: RegExp, cwd = PROJECT_ROOT): Promise<StartedProcess> {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  // Read all along (a full pipe would block the service's logging); only the start is kept, for the ready
  // line and for a failure message.
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      if (output.length < 20_000) output += chunk.toString();
      const match = ready.exec(output);
      if (match) resolve({ child, match });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`)));
  });
}

/** SIGTERM, and the exit. */
export function stopProcess({ child }: StartedProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export interface LoadSample {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  rss: number;
  failed: number;
  /** CPU of the service process (and its workers) per request: what a request costs, however busy the machine. */
  cpuMsPerRequest: number;
  /** A planned scenario's other requests (the writes before its reads): their latencies. */
  otherP50?: number;
  otherP99?: number;
}

export async function load(
  scenario: Scenario, baseUrl: string, keys: BenchKeys, seconds: number, pid: number, connections: number, failures: 'throw' | 'count' = 'throw',
): Promise<LoadSample> {
  const key = keyFor(scenario, keys);
  // Made before the CPU is read: its first answer is not the load's.
  const plan = await scenario.plan?.(baseUrl, key);
  let rss = rssOf(pid);
  const cpuBefore = serviceCpuSeconds(pid);
  const sampler = setInterval(() => { rss = Math.max(rss, rssOf(pid)); }, 200);
  const result = await autocannon({
    url: `${baseUrl}${scenario.path}`, method: scenario.method, body: scenario.body, connections, duration: seconds,
    headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json', ...scenario.headers },
    // A write's every request is built anew (autocannon sets its Content-Length from the body).
    ...(scenario.request && { requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, ...scenario.request!() }) }] }),
    ...(plan && { requests: plan.requests }),
  });
  clearInterval(sampler);
  const measuredEvery = plan?.measuredEvery ?? 1;
  const cpuMsPerRequest = ((serviceCpuSeconds(pid) - cpuBefore) * 1000 * measuredEvery) / result.requests.total;
  await machineQuiet();
  // A planned scenario's answers are checked by its plan (a 304 is what it must get, not a failure).
  const failed = (plan ? plan.wrong() : result.non2xx) + result.errors + result.timeouts;
  if (failed > 0 && failures === 'throw') throw new Error(`${scenario.name}: ${failed} failed requests of ${result.requests.total}`);
  const latencies = plan?.latencies?.();
  const others = plan?.otherLatencies?.();
  return {
    requestsPerSecond: result.requests.average / measuredEvery, rss, failed, cpuMsPerRequest,
    p50: latencies ? percentile(latencies, 0.5) : result.latency.p50, p99: latencies ? percentile(latencies, 0.99) : result.latency.p99,
    ...(others && { otherP50: percentile(others, 0.5), otherP99: percentile(others, 0.99) }),
  };
}

/** The `q` quantile of latencies in ms, to 0.1 ms (autocannon's own are whole ms). */
function percentile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN) * 10) / 10;
}

/** The machine's CPU time so far, in ticks: [idle (with iowait), all]; undefined where /proc/stat is not there. */
function machineTicks(): [number, number] | undefined {
  try {
    const [, ...fields] = fs.readFileSync('/proc/stat', 'utf8').slice(0, 200).split('\n')[0]!.trim().split(/\s+/);
    // user nice system idle iowait irq softirq steal (guest time is inside user already)
    const ticks = fields.slice(0, 8).map(Number);
    return [ticks[3]! + ticks[4]!, ticks.reduce((sum, n) => sum + n, 0)];
  } catch {
    return undefined;
  }
}

/**
 * Waits until the machine is nearly idle again (busy under QUIET_SHARE of its CPU over 100 ms), at most
 * QUIET_WAIT_MS. A load ends with requests still in flight in the process it loaded and in PostgreSQL: after 64
 * connections on the full-page ceiling, the machine stayed 60-90% busy for 0.7 s. Without the wait that work
 * ran during the next scenario's measurement and took its throughput (and its CPU per request): the light page
 * at 64 connections, measured right after it, served 13% less than at 8 where its own ceiling served 4% less
 * (docs/performance.md#a-scenarios-leftovers).
 */
export async function machineQuiet(): Promise<void> {
  const started = performance.now();
  while (performance.now() - started < QUIET_WAIT_MS) {
    const before = machineTicks();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const after = machineTicks();
    if (!before || !after) return;
    const [idle, all] = [after[0] - before[0], after[1] - before[1]];
    if (all > 0 && 1 - idle / all < QUIET_SHARE) return;
  }
}

const QUIET_SHARE = 0.15;
const QUIET_WAIT_MS = 5000;

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
