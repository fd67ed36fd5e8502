// A script of the project's examples run as a user runs it, in a child process: what it prints, waits for a
// line, signals, and how it ended. Shared by the tests of examples/frontend and examples/data-plane.
import { spawn } from 'node:child_process';
import { PROJECT_ROOT } from '../../src/config.ts';

export interface ScriptRun {
  /** Resolves once the script has printed text matching `pattern` (rejects if it ends first). */
  printed(pattern: RegExp): Promise<string>;
  signal(name: NodeJS.Signals): void;
  readonly stdout: string;
  ended: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** `script` with `args`, on this Node, with `env` (and nothing else of this process's environment but PATH). */
export function startScript(script: string, args: string[], env: Record<string, string>): ScriptRun {
  const child = spawn(process.execPath, [script, ...args], { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiting: Array<() => void> = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    waiting.splice(0).forEach((check) => check());
  });
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const ended = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  return {
    ended,
    get stdout() { return stdout; },
    signal: (name) => child.kill(name),
    printed: (pattern) => new Promise((resolve, reject) => {
      const check = () => {
        if (pattern.test(stdout)) resolve(stdout);
        else waiting.push(check);
      };
      void ended.then(() => reject(new Error(`the script ended without printing ${pattern}:\n${stdout}${stderr}`)));
      check();
    }),
  };
}
