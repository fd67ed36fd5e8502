// Rotating the secrets key with real processes on a DATABASE_URL: `npm run secrets -- check` counts what each
// key opens without printing a secret; `npm run secrets -- rotate` moves every secret to SECRETS_KEY in
// batches, survives being killed at any point (every value intact, the next run finishes the work), and does
// nothing when run again; afterwards the service starts without SECRETS_KEY_PREVIOUS, with every value as before.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDocument } from '../src/import/importer.ts';
import { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import { graphqlAt, runNode, startService } from './support/service-process.ts';
import { ACME, ACME_DEPLOYMENT, fixtureText, issueKey } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const EXTRA_SECRETS = 300;
/** Rows made to look as if written before fingerprints were recorded (an upgraded database). */
const UNFINGERPRINTED = 5;
const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const oldFingerprint = new SecretCipher(oldKey).fingerprint;
const newFingerprint = new SecretCipher(newKey).fingerprint;
const bothKeys = new SecretCipher(newKey, [oldKey]);

let db: TestDatabase;
/** Every secret's value, by deployment and name, as imported. */
const imported = new Map<string, string>();
let total: number;

interface StoredRow { id: string; deployment_id: string; name: string; value_ciphertext: Buffer; key_fingerprint: string | null }

beforeAll(async () => {
  db = await createTestDatabase();
  const doc = JSON.parse(fixtureText());
  for (let i = 0; i < EXTRA_SECRETS; i++) doc.deployments[0].secrets.push({ name: `S_${i}`, value: `value ${i} ${randomBytes(6).toString('hex')}` });
  for (const deployment of doc.deployments) for (const { name, value } of deployment.secrets) imported.set(`${deployment.id}/${name}`, value);
  total = imported.size;
  await importDocument(db.orm.em.fork(), JSON.stringify(doc), new SecretCipher(oldKey));
  await db.query(`update secret set key_fingerprint = null where id in (select id from secret order by name limit ${UNFINGERPRINTED})`);
});
afterAll(() => db?.drop());

const env = (current: Buffer, previous?: Buffer) => ({
  DATABASE_URL: db.url, SECRETS_KEY: current.toString('base64'), ...(previous && { SECRETS_KEY_PREVIOUS: previous.toString('base64') }),
});

interface Run { code: number | null; stdout: string; stderr: string }

function startSecretsCli(args: string[], environment: Record<string, string>, onStdout?: (text: string, kill: () => void) => void) {
  const child = runNode('src/cli/secrets.ts', args, environment);
  const kill = () => child.kill('SIGKILL');
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    onStdout?.(stdout, kill);
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<Run>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  return { done, kill };
}

const secretsCli = (args: string[], environment: Record<string, string>, onStdout?: (text: string, kill: () => void) => void) =>
  startSecretsCli(args, environment, onStdout).done;

const storedRows = () => db.query<StoredRow>('select id, deployment_id, name, value_ciphertext, key_fingerprint from secret');

/** Every stored secret opens, with the keys of a rotation in progress, to the value it was imported with. */
async function expectEveryValueIntact(): Promise<Map<string | null, number>> {
  const rows = await storedRows();
  expect(rows).toHaveLength(total);
  const opened = new Map(rows.map((row) => [`${row.deployment_id}/${row.name}`,
    bothKeys.decrypt(row.value_ciphertext, { deploymentId: row.deployment_id, name: row.name }, row.key_fingerprint)]));
  expect(opened).toEqual(imported);
  const perKey = new Map<string | null, number>();
  for (const row of rows) perKey.set(row.key_fingerprint, (perKey.get(row.key_fingerprint) ?? 0) + 1);
  return perKey;
}

const printsNoValue = (run: Run) => {
  for (const value of imported.values()) expect(run.stdout + run.stderr).not.toContain(value);
};

describe('npm run secrets', () => {
  it('check: counts what each configured key opens, and prints no secret', { timeout: 60_000 }, async () => {
    const run = await secretsCli(['check'], env(newKey, oldKey));
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(`${total} secrets stored (`);
    expect(run.stdout).toContain(`${total - UNFINGERPRINTED} recorded under key ${oldFingerprint}`);
    expect(run.stdout).toContain(`${UNFINGERPRINTED} recorded under key none (written before fingerprints)`);
    expect(run.stdout).toContain(`SECRETS_KEY (from the environment): key ${newFingerprint} opens 0\n`);
    expect(run.stdout).toContain(`SECRETS_KEY_PREVIOUS: key ${oldFingerprint} opens ${total}\n`);
    expect(run.stdout).toContain(`Every secret can be read; ${total} are not under SECRETS_KEY yet: run \`npm run secrets -- rotate\`.`);
    printsNoValue(run);

    const withoutOld = await secretsCli(['check'], env(newKey));
    expect(withoutOld.code).toBe(1);
    expect(withoutOld.stderr).toContain(`error: ${total} of ${total} secrets open with no configured key:\n  ${total - UNFINGERPRINTED} written under key ${oldFingerprint}, which is not configured\n`);
    expect(withoutOld.stderr).toContain('written before key fingerprints were recorded, and no configured key opens it');
    printsNoValue(withoutOld);
  });

  it('rotate: refuses, changing nothing, without a key that reads the stored secrets', { timeout: 60_000 }, async () => {
    const before = await storedRows();
    const run = await secretsCli(['rotate'], env(newKey));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^error: The configured secrets key cannot read the stored secrets: the database holds ${total - UNFINGERPRINTED} secrets under key ${oldFingerprint}`));
    expect(await storedRows()).toEqual(before);
  });

  it('rotate: killed at any point, loses nothing, and the next run finishes the work', { timeout: 120_000 }, async () => {
    // Killed as soon as its first batch is committed (the first progress line): part of the work is done.
    const first = await secretsCli(['rotate', '--batch-size', '1'], env(newKey, oldKey), (out, kill) => {
      if (/ rotated \(/.test(out)) kill();
    });
    expect(first.code).toBeNull(); // killed
    expect(first.stdout).toMatch(new RegExp(`^  1 of ${total} rotated \\(0%\\)\\n`));
    const partial = await expectEveryValueIntact();
    expect(partial.get(newFingerprint)).toBeGreaterThan(0);
    expect(partial.get(newFingerprint)).toBeLessThan(total);

    // Killed at other moments of a run under way: between batches, inside one (its transaction rolls back).
    for (const delayMs of [0, 15, 60]) {
      const run = startSecretsCli(['rotate', '--batch-size', '1'], env(newKey, oldKey), (out, kill) => {
        if (/ rotated \(/.test(out)) setTimeout(kill, delayMs);
      });
      await run.done;
      await expectEveryValueIntact();
    }

    const last = await secretsCli(['rotate', '--batch-size', '7'], env(newKey, oldKey));
    expect(last.code, last.stderr).toBe(0);
    const done = /Rotated (\d+) secrets to key (\w+) \(SECRETS_KEY\); (\d+) were already under it\. Every readable secret is now under SECRETS_KEY: SECRETS_KEY_PREVIOUS is no longer needed\.\n$/.exec(last.stdout);
    expect(done, last.stdout).not.toBeNull();
    expect(done![2]).toBe(newFingerprint);
    expect(Number(done![1]) + Number(done![3])).toBe(total);
    expect(Number(done![3])).toBeGreaterThan(0); // the killed runs' committed batches were kept
    expect(await expectEveryValueIntact()).toEqual(new Map([[newFingerprint, total]]));
    printsNoValue(last);
  });

  it('rotate: run again, changes nothing', { timeout: 60_000 }, async () => {
    const before = await storedRows();
    const run = await secretsCli(['rotate'], env(newKey, oldKey));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Rotated 0 secrets to key ${newFingerprint} (SECRETS_KEY); ${total} were already under it.`);
    expect(await storedRows()).toEqual(before);
  });

  it('after rotation, the service runs on the new key alone, with every value as before; the old key alone is refused', { timeout: 60_000 }, async () => {
    const check = await secretsCli(['check'], env(newKey));
    expect(check.code).toBe(0);
    expect(check.stdout).toContain(`key ${newFingerprint} opens ${total}\n`);
    expect(check.stdout).toContain('Every secret can be read, all under SECRETS_KEY.');

    const apiKey = await issueKey(db.orm.em, [ACME], true);
    const service = await startService(env(newKey));
    try {
      const { data } = await graphqlAt(service.url, apiKey, `{ deployments(filter: { ids: ["${ACME_DEPLOYMENT}"] }) { resources { secrets { name value } } } }`);
      const served = new Map(data.deployments.resources[0].secrets.map((s: { name: string; value: string }) => [`${ACME_DEPLOYMENT}/${s.name}`, s.value]));
      expect(served).toEqual(new Map([...imported].filter(([slot]) => slot.startsWith(ACME_DEPLOYMENT))));
    } finally {
      expect(await service.stop()).toBe(0);
    }

    await expect(startService(env(oldKey))).rejects.toThrow(`the database holds ${total} secrets under key ${newFingerprint}, but SECRETS_KEY (from the environment) is key ${oldFingerprint}`);
  });
});

describe('a damaged secret on an upgraded database', () => {
  let damaged: TestDatabase;
  const DAMAGED = 'S_7';
  const envOf = (current: Buffer, previous?: Buffer) => ({ ...env(current, previous), DATABASE_URL: damaged.url });
  beforeAll(async () => {
    damaged = await createTestDatabase();
    const doc = JSON.parse(fixtureText());
    for (let i = 0; i < 30; i++) doc.deployments[0].secrets.push({ name: `S_${i}`, value: `value ${i}` });
    await importDocument(damaged.orm.em.fork(), JSON.stringify(doc), new SecretCipher(oldKey));
    // Written before fingerprints were recorded, one of them damaged (its authentication tag no longer matches).
    await damaged.query('update secret set key_fingerprint = null');
    await damaged.query(`update secret set value_ciphertext = set_byte(value_ciphertext, 20, get_byte(value_ciphertext, 20) # 1) where name = $1`, [DAMAGED]);
  });
  afterAll(() => damaged?.drop());

  it('is not taken for a wrong key; rotation marks it unreadable, so the old key can go; a re-import repairs it', { timeout: 90_000 }, async () => {
    const run = await secretsCli(['rotate'], envOf(newKey, oldKey));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`Rotated 32 secrets to key ${newFingerprint} (SECRETS_KEY); 0 were already under it.`);
    expect(run.stderr).toBe(`error: 1 secrets are damaged: no key opens them, so they are marked unreadable and served as null, 1 found by this run:\n`
      + `  deployment ${ACME_DEPLOYMENT}, secret "${DAMAGED}": written before key fingerprints were recorded, and no configured key opens it\n`
      + 'Re-import their values (`npm run import`: the import rewrites them under SECRETS_KEY) or delete them.\n');
    expect(await damaged.query('select key_fingerprint, count(*)::int as n from secret group by 1 order by 1'))
      .toEqual([{ key_fingerprint: newFingerprint, n: 32 }, { key_fingerprint: 'unreadable', n: 1 }]);

    // The new key alone: the service starts; the damaged value is null with its error, the others are served.
    const apiKey = await issueKey(damaged.orm.em, [ACME], true);
    const service = await startService(envOf(newKey));
    try {
      const result = await graphqlAt(service.url, apiKey, `{ deployments(filter: { ids: ["${ACME_DEPLOYMENT}"] }) { resources { secrets { name value } } } }`);
      const secrets = result.data.deployments.resources[0].secrets as { name: string; value: string | null }[];
      expect(secrets.find((s) => s.name === DAMAGED)).toEqual({ name: DAMAGED, value: null });
      expect(secrets.find((s) => s.name === 'S_8')).toEqual({ name: 'S_8', value: 'value 8' });
      expect(result.errors.map((e: { extensions: unknown }) => e.extensions)).toEqual([{ code: 'SECRET_UNREADABLE' }]);
    } finally {
      expect(await service.stop()).toBe(0);
    }

    const again = await secretsCli(['rotate'], envOf(newKey));
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: 1 secrets are damaged: no key opens them, so they are marked unreadable and served as null\n/);

    const doc = JSON.parse(fixtureText());
    for (let i = 0; i < 30; i++) doc.deployments[0].secrets.push({ name: `S_${i}`, value: `value ${i}` });
    await importDocument(damaged.orm.em.fork(), JSON.stringify(doc), new SecretCipher(newKey));
    const repaired = await secretsCli(['check'], envOf(newKey));
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stdout).toContain('33 secrets stored (33 recorded under key');
    expect((await secretsCli(['rotate'], envOf(newKey))).code).toBe(0);
  });
});
