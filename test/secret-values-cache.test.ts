// Secret values kept decrypted between requests (decrypted-values-cache.ts), as a caller or an attacker would
// notice them: one tenant's values never answer another's rows nor a key without the read-secrets scope; a
// ciphertext copied onto another row is still SECRET_UNREADABLE while the original's value is kept; a value
// rewritten is served new at once; a revocation and a rotation drop what is kept; the bounds hold.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DatabaseNotifications } from '../src/db/database-notifications.ts';
import { rotateSecrets } from '../src/modules/secrets/key-rotation.ts';
import { DecryptedValuesCache } from '../src/modules/secrets/decrypted-values-cache.ts';
import { ROTATION_CHANNEL } from '../src/modules/secrets/rotation-notice.ts';
import { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import { keyFingerprint } from '../src/modules/secrets/key-fingerprint.ts';
import { REVOCATION_CHANNEL } from '../src/modules/tenancy/api-key-revocations.ts';
import { issueApiKey, revokeApiKey } from '../src/modules/tenancy/api-key.service.ts';
import { MASKED_SECRET } from '../src/rest/deployments.route.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { fixtureDocument, importExtra, type DocDeployment } from './support/graphql-expect.ts';
import { ACME, GLOBEX, importFixture, issueKey } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const DEPLOYMENTS = 10;
const SECRETS_EACH = 4;
const oldKey = randomBytes(32);
const newKey = randomBytes(32);
/** The service's cipher reads both keys, so that a rotation to the new one can run under it. */
const cipher = new SecretCipher(newKey, [oldKey]);

/** Each tenant's deployments, with secrets of the same names (S0…) and values of their own. */
const valueOf = (tenant: string, n: number, s: number) => `${tenant === ACME ? 'acme' : 'globex'} value ${s} of ${n}`;
function deploymentsOf(tenant: string): DocDeployment[] {
  const base = fixtureDocument().deployments!.find((d) => d.tenant_id === tenant)!;
  return Array.from({ length: DEPLOYMENTS }, (_, n) => {
    const created = new Date(Date.UTC(2030, 0, 1, 0, n)).toISOString();
    return {
      ...structuredClone(base), id: randomUUID(), name: `kept-${n}`, created_at: created, updated_at: created,
      revisions: [], latest_revision_id: null, active_revision_id: null, tag_value_ids: [], secret_references: [],
      secrets: Array.from({ length: SECRETS_EACH }, (_, s) => ({ name: `S${s}`, value: valueOf(tenant, n, s) })),
    };
  });
}

let db: TestDatabase;
let notifications: DatabaseNotifications;
let cache: DecryptedValuesCache;
let app: RunningApp;
const keys = { acme: '', globex: '', masked: '', writer: '' };
const acme = deploymentsOf(ACME);
const globex = deploymentsOf(GLOBEX);

beforeAll(async () => {
  db = await createTestDatabase();
  const oldCipher = new SecretCipher(oldKey);
  await importFixture(db.orm.em.fork(), oldCipher);
  await importExtra(db.orm.em, oldCipher, { deployments: [...acme, ...globex] });
  keys.acme = await issueKey(db.orm.em, [ACME], true);
  keys.globex = await issueKey(db.orm.em, [GLOBEX], true);
  keys.masked = await issueKey(db.orm.em, [ACME], false);
  keys.writer = await issueKey(db.orm.em, [ACME], true, true);
  notifications = new DatabaseNotifications([REVOCATION_CHANNEL, ROTATION_CHANNEL]);
  cache = new DecryptedValuesCache({ maxEntries: 10_000, maxBytes: 1024 * 1024 });
  cache.listenTo(notifications);
  await notifications.start(db.url);
  app = await startApp(db.orm, cipher, undefined, { decryptedValues: cache, notifications });
});
afterAll(async () => {
  await app?.close();
  cache?.stop();
  await notifications?.stop();
  await cipher.close();
  await db?.drop();
});

type Secrets = { name: string; value: string | null }[];
const expected = (tenant: string, n: number): Secrets => Array.from({ length: SECRETS_EACH }, (_, s) => ({ name: `S${s}`, value: valueOf(tenant, n, s) }));
const numberOf = (name: string) => Number(name.replace('kept-', ''));

/** The REST page's secrets of the `kept-` deployments, by name. */
async function restPage(key: string, url = app.url): Promise<Map<string, Secrets>> {
  const response = await fetch(`${url}/v2/deployments?limit=100`, { headers: { 'x-api-key': key } });
  expect(response.status).toBe(200);
  const page = await response.json() as { resources: { name: string; secrets: Secrets }[] };
  return new Map(page.resources.filter((d) => d.name.startsWith('kept-')).map((d) => [d.name, d.secrets]));
}

async function expectOwnValues(key: string, tenant: string): Promise<void> {
  const page = await restPage(key);
  expect(page.size).toBe(DEPLOYMENTS);
  for (const [name, secrets] of page) expect(secrets, name).toEqual(expected(tenant, numberOf(name)));
}

/** What /metrics says of the cache. */
async function cacheMetrics(url = app.url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? NaN);
  return {
    hits: value(/^secret_values_cache_hits_total (\d+)$/m),
    misses: value(/^secret_values_cache_misses_total (\d+)$/m),
    entries: value(/^secret_values_cache_size\{unit="entries"\} (\d+)$/m),
    bytes: value(/^secret_values_cache_size\{unit="bytes"\} (\d+)$/m),
  };
}

describe('secret values kept decrypted', () => {
  it('answer again from the cache, counted on /metrics', async () => {
    await expectOwnValues(keys.acme, ACME);
    const before = await cacheMetrics();
    expect(before.entries).toBeGreaterThanOrEqual(DEPLOYMENTS * SECRETS_EACH);
    await expectOwnValues(keys.acme, ACME);
    const after = await cacheMetrics();
    expect(after.hits - before.hits).toBeGreaterThanOrEqual(DEPLOYMENTS * SECRETS_EACH);
    expect(after.misses).toBe(before.misses);
  });

  it('of one tenant never answer another tenant\'s rows of the same names', async () => {
    await expectOwnValues(keys.acme, ACME);
    await expectOwnValues(keys.globex, GLOBEX);
    await expectOwnValues(keys.acme, ACME);
  });

  it('are neither read nor filled for a key without the read-secrets scope, on either door', async () => {
    // What keeps them so is that such a key gets no revealer (secret-revealer.ts): with one, each of these reads
    // would decrypt its values (or find them kept) though the answer masks them.
    const one = acme[3]!;
    const reads: [string, () => Promise<Secrets[]>][] = [
      ['REST page', async () => [...(await restPage(keys.masked)).values()]],
      ['REST deployment', async () => {
        const response = await fetch(`${app.url}/v2/deployments/${one.id}`, { headers: { 'x-api-key': keys.masked } });
        expect(response.status).toBe(200);
        return [(await response.json() as { secrets: Secrets }).secrets];
      }],
      ['GraphQL page', async () => {
        const { body } = await app.graphql('{ deployments(limit: 100) { resources { name secrets { name value } } } }', { 'x-api-key': keys.masked });
        expect(body.errors).toBeUndefined();
        return (body.data.deployments.resources as { name: string; secrets: Secrets }[]).filter((d) => d.name.startsWith('kept-')).map((d) => d.secrets);
      }],
      ['GraphQL deployment', async () => {
        const { body } = await app.graphql('query($id: ID!) { deployment(id: $id) { secrets { name value } } }', { 'x-api-key': keys.masked }, { id: one.id });
        expect(body.errors).toBeUndefined();
        return [body.data.deployment.secrets as Secrets];
      }],
    ];
    for (const [door, read] of reads) {
      // Kept values of the tenant's that such a read could find (a hit), and room for more (a miss, an entry).
      await expectOwnValues(keys.acme, ACME);
      const before = await cacheMetrics();
      const answered = await read();
      expect(answered.length, door).toBeGreaterThan(0);
      const masked = door.startsWith('REST') ? MASKED_SECRET : null;
      for (const secrets of answered) expect(secrets.map((secret) => secret.value), door).toEqual(Array(SECRETS_EACH).fill(masked));
      const after = await cacheMetrics();
      expect({ hits: after.hits, misses: after.misses, entries: after.entries }, door).toEqual({ hits: before.hits, misses: before.misses, entries: before.entries });
    }
  });

  it('do not answer a ciphertext copied onto another deployment\'s row: it is SECRET_UNREADABLE, the rest served', async () => {
    const [from, onto] = [acme[0]!, acme[1]!];
    await expectOwnValues(keys.acme, ACME);
    await db.query(`update secret set value_ciphertext = (select value_ciphertext from secret where deployment_id = $1 and name = 'S0'),
                                      key_fingerprint = (select key_fingerprint from secret where deployment_id = $1 and name = 'S0')
                     where deployment_id = $2 and name = 'S0'`, [from.id, onto.id]);
    try {
      const { body } = await app.graphql('{ deployments(limit: 100) { resources { uuid secrets { name value } } } }', { 'x-api-key': keys.acme });
      const resources = body.data.deployments.resources as { uuid: string; secrets: Secrets }[];
      const index = resources.findIndex((d) => d.uuid === onto.id);
      expect(resources[index]!.secrets).toEqual([{ name: 'S0', value: null }, ...expected(ACME, 1).slice(1)]);
      expect(resources.find((d) => d.uuid === from.id)!.secrets).toEqual(expected(ACME, 0));
      expect(body.errors.map((e: { path: unknown; extensions: unknown }) => [e.path, e.extensions]))
        .toEqual([[['deployments', 'resources', index, 'secrets', 0, 'value'], { code: 'SECRET_UNREADABLE' }]]);
      const page = await restPage(keys.acme);
      expect(page.get('kept-1')).toEqual([{ name: 'S0', value: MASKED_SECRET }, ...expected(ACME, 1).slice(1)]);
    } finally {
      // Put back as imported: a fresh ciphertext of the original value, sealed for its own row.
      const sealed = new SecretCipher(oldKey).seal(valueOf(ACME, 1, 0), { deploymentId: onto.id, name: 'S0' });
      await db.query(`update secret set value_ciphertext = $1, key_fingerprint = $2 where deployment_id = $3 and name = 'S0'`,
        [sealed.valueCiphertext, sealed.keyFingerprint, onto.id]);
    }
    await expectOwnValues(keys.acme, ACME);
  });

  it('answer only the row they were made from: not one differing in tenant, deployment, name, key fingerprint or a byte', () => {
    const kept = new DecryptedValuesCache({ maxEntries: 10, maxBytes: 1024 * 1024 });
    kept.listenTo(notifications);
    try {
      expect(kept.active).toBe(true);
      const sealed = cipher.seal('kept value', { deploymentId: acme[0]!.id, name: 'S0' });
      const row = { deployment_id: acme[0]!.id, name: 'S0', value_ciphertext: sealed.valueCiphertext.toString('base64'), key_fingerprint: sealed.keyFingerprint };
      kept.set(ACME, row, 'kept value', kept.generation, 0);
      expect(kept.get(ACME, { ...row }, 1)).toBe('kept value');
      const flipped = Buffer.from(sealed.valueCiphertext);
      flipped[flipped.length - 1]! ^= 1;
      const others: [string, string, typeof row][] = [
        ['another tenant', GLOBEX, row],
        ['another deployment', ACME, { ...row, deployment_id: acme[1]!.id }],
        ['another name', ACME, { ...row, name: 'S1' }],
        ['another key fingerprint', ACME, { ...row, key_fingerprint: keyFingerprint(oldKey) }],
        ['no key fingerprint', ACME, { ...row, key_fingerprint: null as unknown as string }],
        ['a byte of the ciphertext', ACME, { ...row, value_ciphertext: flipped.toString('base64') }],
      ];
      for (const [what, tenant, other] of others) expect(kept.get(tenant, other, 1), what).toBeUndefined();
      // Still there for its own row; gone once stale.
      expect(kept.get(ACME, row, 1)).toBe('kept value');
      expect(kept.get(ACME, row, kept.limits.ttlMs)).toBeUndefined();
      expect(kept.size.entries).toBe(0);
    } finally {
      kept.stop();
    }
  });

  it('do not answer a row whose recorded key fingerprint changed: it is SECRET_UNREADABLE, the rest served', async () => {
    // The rows were written under the old key; the cipher reads the new one too, which does not open them.
    const target = acme[4]!;
    await expectOwnValues(keys.acme, ACME);
    await db.query(`update secret set key_fingerprint = $1 where deployment_id = $2 and name = 'S1'`, [keyFingerprint(newKey), target.id]);
    try {
      const { body } = await app.graphql('{ deployments(limit: 100) { resources { uuid secrets { name value } } } }', { 'x-api-key': keys.acme });
      const resources = body.data.deployments.resources as { uuid: string; secrets: Secrets }[];
      const index = resources.findIndex((d) => d.uuid === target.id);
      const secrets = expected(ACME, 4);
      expect(resources[index]!.secrets).toEqual([secrets[0], { name: 'S1', value: null }, ...secrets.slice(2)]);
      expect(body.errors.map((e: { path: unknown; extensions: unknown }) => [e.path, e.extensions]))
        .toEqual([[['deployments', 'resources', index, 'secrets', 1, 'value'], { code: 'SECRET_UNREADABLE' }]]);
    } finally {
      await db.query(`update secret set key_fingerprint = $1 where deployment_id = $2 and name = 'S1'`, [keyFingerprint(oldKey), target.id]);
    }
    await expectOwnValues(keys.acme, ACME);
  });

  it('serve long values (their ciphertext\'s base64 over several lines) as written, deciphered and then kept', async () => {
    const target = acme[5]!;
    const long = (s: number) => `${'long é€ 🔑 value '.repeat(12 + s)}${s}`;
    const secrets = expected(ACME, 5).map((secret, s) => ({ ...secret, value: long(s) }));
    const update = (values: Secrets) => app.graphql('mutation($input: UpdateDeploymentInput!) { updateDeployment(input: $input) { __typename } }',
      { 'x-api-key': keys.writer }, { input: { id: target.id, secrets: values } });
    expect((await update(secrets)).body.data.updateDeployment.__typename).toBe('UpdateDeploymentPayload');
    try {
      const [row] = await db.query<{ lines: number }>(`select max(array_length(string_to_array(encode(value_ciphertext, 'base64'), E'\n'), 1)) as lines
                                                              from secret where deployment_id = $1`, [target.id]);
      expect(row!.lines).toBeGreaterThan(2);
      const first = await cacheMetrics();
      expect((await restPage(keys.acme)).get('kept-5')).toEqual(secrets);
      const deciphered = await cacheMetrics();
      expect(deciphered.misses - first.misses).toBeGreaterThanOrEqual(SECRETS_EACH);
      expect((await restPage(keys.acme)).get('kept-5')).toEqual(secrets);
      const kept = await cacheMetrics();
      expect(kept.misses).toBe(deciphered.misses);
      expect(kept.hits - deciphered.hits).toBeGreaterThanOrEqual(DEPLOYMENTS * SECRETS_EACH);
    } finally {
      await update(expected(ACME, 5));
    }
    await expectOwnValues(keys.acme, ACME);
  });

  it('serve a value rewritten by a write new at once', async () => {
    const target = acme[2]!;
    await expectOwnValues(keys.acme, ACME);
    const secrets = expected(ACME, 2).map((secret, s) => (s === 0 ? { ...secret, value: 'rewritten value' } : secret));
    const { body } = await app.graphql('mutation($input: UpdateDeploymentInput!) { updateDeployment(input: $input) { __typename ... on MutationError { message } } }',
      { 'x-api-key': keys.writer }, { input: { id: target.id, secrets } });
    expect(body.errors).toBeUndefined();
    expect(body.data.updateDeployment.__typename).toBe('UpdateDeploymentPayload');
    expect((await restPage(keys.acme)).get('kept-2')).toEqual(secrets);
    // Back as it was, for the tests after this one.
    await app.graphql('mutation($input: UpdateDeploymentInput!) { updateDeployment(input: $input) { __typename } }',
      { 'x-api-key': keys.writer }, { input: { id: target.id, secrets: expected(ACME, 2) } });
    await expectOwnValues(keys.acme, ACME);
  });

  it('are all dropped when any API key is revoked', async () => {
    await expectOwnValues(keys.acme, ACME);
    expect((await cacheMetrics()).entries).toBeGreaterThan(0);
    const { apiKey } = await issueApiKey(db.orm.em.fork(), { tenantIds: [GLOBEX], name: 'to revoke', mayReadSecrets: false });
    await revokeApiKey(db.orm.em.fork(), apiKey.id);
    await vi.waitFor(async () => expect((await cacheMetrics()).entries).toBe(0));
    const before = await cacheMetrics();
    await expectOwnValues(keys.acme, ACME);
    expect((await cacheMetrics()).misses - before.misses).toBeGreaterThanOrEqual(DEPLOYMENTS * SECRETS_EACH);
  });

  it('are all dropped when a secrets-key rotation rewrites the rows, which then read as before', async () => {
    await expectOwnValues(keys.acme, ACME);
    expect((await cacheMetrics()).entries).toBeGreaterThan(0);
    // A rotation in another process is heard the same way: NOTIFY in each batch's transaction.
    const result = await rotateSecrets(db.orm.em.fork(), new SecretCipher(newKey, [oldKey]), { batchSize: 25 });
    expect(result.rotated).toBeGreaterThan(0);
    await vi.waitFor(async () => expect((await cacheMetrics()).entries).toBe(0));
    const before = await cacheMetrics();
    await expectOwnValues(keys.acme, ACME);
    await expectOwnValues(keys.globex, GLOBEX);
    const after = await cacheMetrics();
    expect(after.hits).toBe(before.hits);
  });

  it('stay within their bounds of entries and bytes, and the values served are still right', async () => {
    for (const limits of [{ maxEntries: 15, maxBytes: 1024 * 1024 }, { maxEntries: 10_000, maxBytes: 4096 }]) {
      const small = new DecryptedValuesCache(limits);
      small.listenTo(notifications);
      const bounded = await startApp(db.orm, cipher, undefined, { decryptedValues: small, notifications });
      try {
        for (let round = 0; round < 2; round++) {
          const page = await restPage(keys.acme, bounded.url);
          for (const [name, secrets] of page) expect(secrets, name).toEqual(expected(ACME, numberOf(name)));
          const { entries, bytes } = await cacheMetrics(bounded.url);
          expect(entries).toBeGreaterThan(0);
          expect(entries).toBeLessThanOrEqual(limits.maxEntries);
          expect(bytes).toBeLessThanOrEqual(limits.maxBytes);
        }
      } finally {
        await bounded.close();
        small.stop();
      }
    }
  });
});
