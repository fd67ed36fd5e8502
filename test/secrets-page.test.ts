// A page that reveals many secret values (enough for the cipher to decrypt them on its decryption thread)
// shows each deployment its own values, on both doors; a damaged ciphertext, or one moved onto another row,
// is still caught there (null with SECRET_UNREADABLE, the rest served); and a batch in flight when the
// thread stops is still answered.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MASKED_SECRET } from '../src/rest/deployments.route.ts';
import { DecryptionThread } from '../src/modules/secrets/decryption-thread.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { importExtra, newerAcmeDeployments } from './support/graphql-expect.ts';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const DEPLOYMENTS = 30;
const SECRETS_EACH = 4;
// Well above the size from which the values go to the thread, so that the page's batch does.
const PAGE = DEPLOYMENTS;

const valueOf = (deployment: number, secret: number) => `value ${secret} of deployment ${deployment}: ${'é€'.repeat(deployment % 5)}`;

let db: TestDatabase;
let app: RunningApp;
let readerKey: string;
let maskedKey: string;
const cipher = newCipher();
const ids: string[] = [];

beforeAll(async () => {
  expect(DEPLOYMENTS * SECRETS_EACH).toBeGreaterThan(2 * DecryptionThread.WORTH_IT_FROM);
  db = await createTestDatabase();
  await importFixture(db.orm.em.fork(), cipher);
  const deployments = newerAcmeDeployments(DEPLOYMENTS, (n) => ({
    name: `many-secrets-${n}`, secrets: Array.from({ length: SECRETS_EACH }, (_, s) => ({ name: `S${s}`, value: valueOf(n, s) })),
  }));
  ids.push(...deployments.map((d) => d.id));
  await importExtra(db.orm.em, cipher, { deployments });
  readerKey = await issueKey(db.orm.em, [ACME], true);
  maskedKey = await issueKey(db.orm.em, [ACME], false);
  app = await startApp(db.orm, cipher);
});
afterAll(async () => {
  await app?.close();
  await cipher.close();
  await db?.drop();
});

const expectedSecrets = (n: number) => Array.from({ length: SECRETS_EACH }, (_, s) => ({ name: `S${s}`, value: valueOf(n, s) }));
const numberOf = (name: string) => Number(name.replace('many-secrets-', ''));

describe('a page revealing many secrets', () => {
  it('shows each deployment its own values in GraphQL', async () => {
    const { status, body } = await app.graphql(`{ deployments(limit: ${PAGE}) { resources { name secrets { name value } } } }`, { 'x-api-key': readerKey });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const resources: { name: string; secrets: unknown }[] = body.data.deployments.resources;
    expect(resources.map((d) => d.name)).toEqual(Array.from({ length: DEPLOYMENTS }, (_, i) => `many-secrets-${DEPLOYMENTS - 1 - i}`));
    for (const deployment of resources) expect(deployment.secrets).toEqual(expectedSecrets(numberOf(deployment.name)));
  });

  it('shows the values to the page that asks for them, beside a page of the same deployments that does not', async () => {
    // A page's secrets are read with it, values or not (secrets-with-page.ts): what was read for one selection of
    // them must not answer another, of the same page (aliases) or of another page of the same request (both orders:
    // which page's read ends first is up to the database).
    for (const [a, b] of [['name', 'name value'], ['name value', 'name']] as const) {
      const { body: aliased } = await app.graphql(
        `{ deployments(limit: ${PAGE}) { resources { name a: secrets { ${a} } b: secrets { ${b} } } } }`, { 'x-api-key': readerKey },
      );
      expect(aliased.errors).toBeUndefined();
      for (const deployment of aliased.data.deployments.resources as { name: string; a: unknown; b: unknown }[]) {
        const expected = (fields: string) => expectedSecrets(numberOf(deployment.name)).map((secret) => (fields === 'name' ? { name: secret.name } : secret));
        expect([deployment.a, deployment.b], deployment.name).toEqual([expected(a), expected(b)]);
      }
      const { body } = await app.graphql(
        `{ a: deployments(limit: ${PAGE}) { resources { name secrets { ${a} } } } b: deployments(limit: ${PAGE}) { resources { name secrets { ${b} } } } }`,
        { 'x-api-key': readerKey },
      );
      expect(body.errors).toBeUndefined();
      for (const [page, fields] of [[body.data.a, a], [body.data.b, b]]) {
        for (const deployment of page.resources as { name: string; secrets: unknown }[]) {
          const expected = expectedSecrets(numberOf(deployment.name)).map((secret) => (fields === 'name' ? { name: secret.name } : secret));
          expect(deployment.secrets, `${fields} of ${deployment.name}`).toEqual(expected);
        }
      }
    }
  });

  it('shows the same values on REST, and none to a key without the scope', async () => {
    const revealed = await (await fetch(`${app.url}/v2/deployments?limit=${PAGE}`, { headers: { 'x-api-key': readerKey } })).json();
    for (const deployment of revealed.resources) expect(deployment.secrets).toEqual(expectedSecrets(numberOf(deployment.name)));
    const masked = await (await fetch(`${app.url}/v2/deployments?limit=${PAGE}`, { headers: { 'x-api-key': maskedKey } })).json();
    for (const deployment of masked.resources) expect(deployment.secrets.map((s: { value: string }) => s.value)).toEqual(Array(SECRETS_EACH).fill(MASKED_SECRET));
  });

  it('still refuses a damaged ciphertext and one moved onto another row, and serves the rest', async () => {
    const [damaged, movedTo, movedFrom] = [ids[3]!, ids[5]!, ids[6]!];
    await db.query(`update secret set value_ciphertext = set_byte(value_ciphertext, 20, get_byte(value_ciphertext, 20) # 1)
                     where deployment_id = $1 and name = 'S1'`, [damaged]);
    // The same key made it, but for another deployment: the associated data binds it to its row.
    await db.query(`update secret set value_ciphertext = (select value_ciphertext from secret where deployment_id = $2 and name = 'S2')
                     where deployment_id = $1 and name = 'S2'`, [movedTo, movedFrom]);
    const { body } = await app.graphql(`{ deployments(limit: ${PAGE}) { resources { uuid name secrets { name value } } } }`, { 'x-api-key': readerKey });
    const resources: { uuid: string; name: string; secrets: { name: string; value: string | null }[] }[] = body.data.deployments.resources;
    const unreadable = body.errors.map((error: { path: (string | number)[]; extensions: unknown }) => {
      const deployment = resources[error.path[2] as number]!;
      return { uuid: deployment.uuid, secret: deployment.secrets[error.path[4] as number]!.name, extensions: error.extensions };
    });
    expect(unreadable).toEqual(expect.arrayContaining([
      { uuid: damaged, secret: 'S1', extensions: { code: 'SECRET_UNREADABLE' } },
      { uuid: movedTo, secret: 'S2', extensions: { code: 'SECRET_UNREADABLE' } },
    ]));
    expect(unreadable).toHaveLength(2);
    for (const deployment of resources) {
      const n = numberOf(deployment.name);
      const expected = expectedSecrets(n).map((secret) =>
        ((deployment.uuid === damaged && secret.name === 'S1') || (deployment.uuid === movedTo && secret.name === 'S2') ? { ...secret, value: null } : secret));
      expect(deployment.secrets).toEqual(expected);
    }
  });
});

describe('the decryption thread', () => {
  it('keeps a process alive while it holds a batch, and not once it is idle', () => {
    // A script that decrypts a page's worth and then has nothing left to do: it prints every value, and exits.
    const cipherModule = new URL('../src/modules/secrets/secret-cipher.ts', import.meta.url).href;
    const script = `
      import { randomBytes, randomUUID } from 'node:crypto';
      import { SecretCipher } from ${JSON.stringify(cipherModule)};
      const cipher = new SecretCipher(randomBytes(32));
      const secrets = Array.from({ length: ${2 * DecryptionThread.WORTH_IT_FROM} }, (_, i) => {
        const slot = { deploymentId: randomUUID(), name: 'S' + i };
        return { stored: cipher.seal('plain ' + i, slot).valueCiphertext, slot, keyFingerprint: cipher.fingerprint };
      });
      console.log((await cipher.decryptMany(secrets)).join(','));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '--eval', script], { encoding: 'utf8', timeout: 20_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe(Array.from({ length: 2 * DecryptionThread.WORTH_IT_FROM }, (_, i) => `plain ${i}`).join(','));
    expect(run.status).toBe(0);
  });

  it('answers a batch it had when it stops, where the batch was asked for', async () => {
    const other = newCipher();
    const secrets = Array.from({ length: 2 * DecryptionThread.WORTH_IT_FROM }, (_, i) => {
      const slot = { deploymentId: randomUUID(), name: `S${i}` };
      return { stored: other.seal(`plain ${i}`, slot).valueCiphertext, slot, keyFingerprint: other.fingerprint };
    });
    const asked = other.decryptMany(secrets);
    await other.close();
    expect(await asked).toEqual(secrets.map((_, i) => `plain ${i}`));
    // And a later batch starts a thread again.
    expect(await other.decryptMany(secrets)).toEqual(secrets.map((_, i) => `plain ${i}`));
    await other.close();
  });
});
