// The service's exit code is what a process manager, a container runtime or a CI script acts on. A bad setting
// and a failed start exit 1 (config.test.ts, startup.test.ts), a clean drain after SIGTERM exits 0
// (graceful-shutdown.test.ts); here: a crash exits non-zero, and neither a crash nor a failed start leaves the
// embedded PostgreSQL behind (it runs detached, in a process group of its own, so nothing else stops it).
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config.ts';
import { runNode, startService } from './support/service-process.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) {
    await stopLeftoverPostgres(dir);
    await fs.rm(dir, { recursive: true, force: true });
  }
});

async function dataDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dmg-exit-'));
  await fs.chmod(dir, 0o711); // PostgreSQL runs as another user when the tests run as root
  dirs.push(dir);
  return dir;
}

const postmasterPid = (dir: string) => path.join(dir, 'postgres', 'postmaster.pid');

/** PostgreSQL removes its postmaster.pid as the last step of its shutdown. */
async function postgresStopped(dir: string): Promise<boolean> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    if (!existsSync(postmasterPid(dir))) return true;
    await sleep(50);
  }
  return false;
}

async function stopLeftoverPostgres(dir: string): Promise<void> {
  if (!existsSync(postmasterPid(dir))) return;
  try {
    process.kill(Number((await fs.readFile(postmasterPid(dir), 'utf8')).split('\n')[0]), 'SIGINT');
    await postgresStopped(dir);
  } catch { /* already gone */ }
}

it('a crash after start exits non-zero and stops the embedded PostgreSQL', { timeout: 60_000 }, async () => {
  const dir = await dataDir();
  const crashOnSignal = path.join(PROJECT_ROOT, 'test/fixtures/crash-on-sigusr2.mjs');
  const service = await startService({ DATA_DIR: dir, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${crashOnSignal}` });
  expect(existsSync(postmasterPid(dir))).toBe(true);

  service.kill('SIGUSR2');
  const code = await service.exited;
  expect(code, service.output()).not.toBe(0);
  expect(code, service.output()).not.toBeNull();
  expect(service.output()).toContain('simulated crash');
  expect(await postgresStopped(dir), 'the PostgreSQL of a crashed service is still running').toBe(true);
});

it('a start that fails after the embedded PostgreSQL is up exits 1 and stops that PostgreSQL', { timeout: 60_000 }, async () => {
  const dir = await dataDir();
  const child = runNode('src/main.ts', [], { DATA_DIR: dir, PORT: '0', HOST: 'no-such-host.invalid' });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(output).toContain('Invalid configuration: HOST does not allow listening on no-such-host.invalid:0');
  expect(code, output).toBe(1);
  expect(existsSync(path.join(dir, 'postgres', 'PG_VERSION')), 'PostgreSQL was started before the failure').toBe(true);
  expect(await postgresStopped(dir)).toBe(true);
});
