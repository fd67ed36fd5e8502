// The README's start command is `npm start`, so that is what a process manager or a container stops. npm runs
// the script through a shell; the service must still receive the SIGTERM sent to npm, drain and stop, rather
// than being left running as an orphan (what a shell in between does when it does not pass signals on).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import pg from 'pg';
import { afterAll, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config.ts';
import { createDatabaseIfMissing } from '../src/db/database.ts';
import { urlForDatabase } from './support/test-database.ts';

const name = `test_${randomBytes(6).toString('hex')}`;
afterAll(async () => {
  const admin = new pg.Client({ connectionString: inject('postgresMaintenanceUrl') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(name)} WITH (FORCE)`);
  await admin.end();
});

const refuses = (port: number) => new Promise<boolean>((resolve) => {
  const socket = net.connect(port, '127.0.0.1');
  socket.once('connect', () => { socket.destroy(); resolve(false); });
  socket.once('error', () => resolve(true));
});

it('SIGTERM to `npm start` reaches the service, which drains and stops', { timeout: 120_000 }, async () => {
  const maintenance = inject('postgresMaintenanceUrl');
  await createDatabaseIfMissing(maintenance, name);
  const child = spawn('npm', ['start'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: '0', DATABASE_URL: urlForDatabase(maintenance, name), SECRETS_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // 'close': the process has exited and everything it wrote has been read.
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  // Ready (or gone): the event, however long a busy machine takes to get there.
  const ready = await new Promise<boolean>((resolve) => {
    child.stdout!.on('data', () => { if (/GraphQL ready at/.test(output)) resolve(true); });
    void closed.then(() => resolve(false));
  });
  const port = Number(/GraphQL ready at http:\/\/localhost:(\d+)/.exec(output)?.[1]);
  expect(ready, output).toBe(true);
  expect(port, output).toBeGreaterThan(0);

  child.kill('SIGTERM'); // npm itself, as `docker stop` or a process manager would
  await closed;
  expect(output).toContain('"msg":"shutting down: finishing requests in flight, then stopping"');
  expect(output).toContain('"msg":"stopped"');
  expect(await refuses(port)).toBe(true);
});
