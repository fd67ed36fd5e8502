// What `npm run bench` and `npm run bench:compare` share: starting a process of the service (or a ceiling) and
// reading its ready line, and driving one scenario at it with autocannon while measuring the process's CPU.
import { spawn, type ChildProcess } from 'node:child_process';
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
}

export async function load(
  scenario: Scenario, baseUrl: string, keys: BenchKeys, seconds: number, pid: number, connections: number, failures: 'throw' | 'count' = 'throw',
): Promise<LoadSample> {
  let rss = rssOf(pid);
  const cpuBefore = serviceCpuSeconds(pid);
  const sampler = setInterval(() => { rss = Math.max(rss, rssOf(pid)); }, 200);
  const result = await autocannon({
    url: `${baseUrl}${scenario.path}`, method: scenario.method, body: scenario.body, connections, duration: seconds,
    headers: { 'x-api-key': keyFor(scenario, keys), 'content-type': 'application/json', accept: 'application/json', ...scenario.headers },
  });
  clearInterval(sampler);
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0 && failures === 'throw') throw new Error(`${scenario.name}: ${failed} failed requests of ${result.requests.total}`);
  const cpuMsPerRequest = ((serviceCpuSeconds(pid) - cpuBefore) * 1000) / result.requests.total;
  return { requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, rss, failed, cpuMsPerRequest };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
