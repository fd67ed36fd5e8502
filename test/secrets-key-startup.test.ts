// The secrets key at start-up, with real service processes on an embedded PostgreSQL: a key is generated only
// for a database without secrets (kept in DATA_DIR/secrets.key, mode 0600), and a process whose key cannot
// read the stored secrets does not start: it exits 1 with one line naming SECRETS_KEY and the file it looked at,
// stops its PostgreSQL, and generates nothing.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyFingerprint } from '../src/modules/secrets/key-fingerprint.ts';
import { graphqlAt, runNode, startService } from './support/service-process.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

async function dataDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dmg-key-'));
  await fs.chmod(dir, 0o711); // PostgreSQL runs as another user when the tests run as root
  dirs.push(dir);
  return dir;
}

const newKey = () => randomBytes(32);
const demoKeyOf = (output: string) => /Demo API key \([^)]*\): (dmk_\S+)/.exec(output)![1]!;
const SECRETS_QUERY = '{ deployments(limit: 100) { resources { secrets { name value } } } }';

/** A start that must fail: its exit code and what it wrote to stderr. */
async function failedStart(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = runNode('src/main.ts', [], { PORT: '0', ...env });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A service that starts after all is stopped, so that the test fails on its assertions, leaving nothing running.
  const stopIfStarted = setTimeout(() => child.kill('SIGTERM'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(stopIfStarted);
  return { code, stderr };
}

/** The service stopped its PostgreSQL (it removes postmaster.pid as the last step of its shutdown). */
async function postgresStopped(dir: string): Promise<boolean> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    if (!existsSync(path.join(dir, 'postgres', 'postmaster.pid'))) return true;
    await sleep(50);
  }
  return false;
}

describe('a key generated on first start', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await dataDir();
    file = path.join(dir, 'secrets.key');
  });

  it('is kept in DATA_DIR/secrets.key with mode 0600, and read again on the next start', { timeout: 60_000 }, async () => {
    const first = await startService({ DATA_DIR: dir });
    const demoKey = demoKeyOf(first.output());
    const before = await graphqlAt(first.url, demoKey, SECRETS_QUERY);
    expect(await first.stop()).toBe(0);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const key = await fs.readFile(file, 'utf8');

    const second = await startService({ DATA_DIR: dir });
    const after = await graphqlAt(second.url, demoKey, SECRETS_QUERY);
    expect(after).toEqual(before);
    expect(JSON.stringify(after)).toMatch(/"value":"[^"*]+"/); // real values, not masked or null
    expect(after.errors).toBeUndefined();
    expect(await second.stop()).toBe(0);
    expect(await fs.readFile(file, 'utf8')).toBe(key);
  });

  it('wrote the secrets: a different SECRETS_KEY is refused, with a hint to use the file', { timeout: 60_000 }, async () => {
    const fileKey = keyFingerprint(Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'base64'));
    const other = newKey();
    const { code, stderr } = await failedStart({ DATA_DIR: dir, SECRETS_KEY: other.toString('base64') });
    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(new RegExp(
      `^The configured secrets key cannot read the stored secrets: the database holds \\d+ secrets under key ${fileKey}, `
      + `but SECRETS_KEY \\(from the environment\\) is key ${keyFingerprint(other)} \\(the key in ${file} is key ${fileKey}: unset SECRETS_KEY to use it\\); `
      + 'set SECRETS_KEY to the key that wrote them, or during a rotation the new key as SECRETS_KEY and the old one as SECRETS_KEY_PREVIOUS$'))]);
    expect(await postgresStopped(dir)).toBe(true);
  });

  it('is refused if other users can read its file', { timeout: 60_000 }, async () => {
    await fs.chmod(file, 0o644);
    try {
      const { code, stderr } = await failedStart({ DATA_DIR: dir });
      expect(code).toBe(1);
      expect(stderr).toBe(`${file} is readable by other users (mode 644): run \`chmod 600 ${file}\`\n`);
    } finally {
      await fs.chmod(file, 0o600);
    }
  });
});

describe('secrets written under SECRETS_KEY', () => {
  let dir: string;
  const key = newKey();
  let demoKey: string;
  let values: unknown;
  beforeAll(async () => {
    dir = await dataDir();
    const first = await startService({ DATA_DIR: dir, SECRETS_KEY: key.toString('base64') });
    demoKey = demoKeyOf(first.output());
    values = await graphqlAt(first.url, demoKey, SECRETS_QUERY);
    expect(await first.stop()).toBe(0);
  }, 60_000);

  it('are never covered by a generated key: a start without one fails, naming SECRETS_KEY and the file', { timeout: 60_000 }, async () => {
    const { code, stderr } = await failedStart({ DATA_DIR: dir });
    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(new RegExp(
      `^SECRETS_KEY is not set and ${path.join(dir, 'secrets.key')} does not exist, but the database holds (\\d+) encrypted secrets \\(\\1 under key ${keyFingerprint(key)}\\): `
      + 'set SECRETS_KEY to the key that wrote them \\(a key is generated only for a database without secrets\\)$'))]);
    expect(existsSync(path.join(dir, 'secrets.key'))).toBe(false);
    expect(await postgresStopped(dir)).toBe(true);
  });

  it('are refused to another key, which never reports ready', { timeout: 60_000 }, async () => {
    const { code, stderr } = await failedStart({ DATA_DIR: dir, SECRETS_KEY: newKey().toString('base64') });
    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`^The configured secrets key cannot read the stored secrets: the database holds \\d+ secrets under key ${keyFingerprint(key)}, but SECRETS_KEY`));
    expect(stderr).not.toContain('GraphQL ready');
    expect(await postgresStopped(dir)).toBe(true);
  });

  it('are read again with that key', { timeout: 60_000 }, async () => {
    const service = await startService({ DATA_DIR: dir, SECRETS_KEY: key.toString('base64') });
    expect(await graphqlAt(service.url, demoKey, SECRETS_QUERY)).toEqual(values);
    expect(await (await fetch(new URL('/ready', service.url))).json()).toMatchObject({ status: 'ready', checks: { secretsKey: 'ok' } });
    expect(await service.stop()).toBe(0);
  });
});
