// Runs the service as a user does (`node src/main.ts`, real process, real port) and reads its log.
import { spawn, type ChildProcess } from 'node:child_process';
import { PROJECT_ROOT } from '../../src/config.ts';

export interface ServiceProcess {
  url: string;
  pid: number;
  output: () => string;
  /** The first match of `pattern` in the output, as soon as it is there (rejects after `deadlineMs`, or on exit). */
  waitFor(pattern: RegExp, deadlineMs?: number): Promise<RegExpExecArray>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
  exited: Promise<number | null>;
}

const OWN_VARIABLES = ['PORT', 'HOST', 'DATABASE_URL', 'DATABASE_POOLER', 'DATABASE_DIRECT_URL', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_SERVICE_NAME', 'DATA_DIR', 'SECRETS_KEY', 'MIGRATE_ON_START', 'SEED_DEMO_DATA', 'EMBEDDED_PG_PORT', 'WORKERS'];

export function runNode(script: string, args: string[], env: Record<string, string>): ChildProcess {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !OWN_VARIABLES.includes(k)));
  return spawn(process.execPath, [script, ...args], { cwd: PROJECT_ROOT, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

export function startService(env: Record<string, string>): Promise<ServiceProcess> {
  const child = runNode('src/main.ts', [], { PORT: '0', ...env });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = (pattern: RegExp, deadlineMs = 30_000) => new Promise<RegExpExecArray>((resolve, reject) => {
    const look = () => {
      const match = pattern.exec(output);
      if (!match) return;
      done();
      resolve(match);
    };
    const timer = setTimeout(() => { done(); reject(new Error(`no ${pattern} in the output within ${deadlineMs} ms:\n${output}`)); }, deadlineMs);
    const onExit = () => { done(); reject(new Error(`the service exited without ${pattern} in its output:\n${output}`)); };
    function done() {
      clearTimeout(timer);
      child.stdout!.off('data', look);
      child.stderr!.off('data', look);
      child.off('close', onExit);
    }
    // Registered after the output's own listeners, so `output` already holds the chunk.
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('close', onExit);
    look();
  });
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /GraphQL ready at (\S+)/.exec(output);
      // The demo key line, when there is one, follows the ready line in the same write burst.
      if (ready && (env.DATABASE_URL || /Demo API key/.test(output))) {
        resolve({
          url: ready[1]!,
          pid: child.pid!,
          output: () => output,
          waitFor,
          stop: async () => {
            child.kill('SIGTERM');
            return exited;
          },
          kill: (signal) => child.kill(signal),
          exited,
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    void exited.then((code) => reject(new Error(`service exited with ${code} before it was ready:\n${output}`)));
  });
}

export async function graphqlAt(url: string, key: string, query: string): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ query }) });
  return response.json();
}

/** Runs one of the project's CLIs (`src/cli/*.ts`) to its end: its exit code and everything it printed. */
export async function runCliProcess(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = runNode(script, args, env);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, output };
}
