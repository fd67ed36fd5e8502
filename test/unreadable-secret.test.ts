// One stored secret that cannot be decrypted (a damaged ciphertext) does not take a page down: its value is
// null with a SECRET_UNREADABLE error on its path in GraphQL, masked on REST, the rest of the page is served,
// and the operator learns of it from an error log line (with the deployment id) and a metric. And /ready
// stops reporting ready when secrets appear under a key this process does not have.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDocument } from '../src/import/importer.ts';
import { createLogger } from '../src/observability/logger.ts';
import { Metrics } from '../src/observability/metrics.ts';
import { MASKED_SECRET } from '../src/rest/deployments.route.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, ACME_DEPLOYMENT, fixtureText, issueKey, newCipher } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const VALUES = { STRIPE_SECRET: 'sk_live_fixture_Zq8', DB_PASSWORD: 'correct horse battery staple' };
const DAMAGED = 'DB_PASSWORD';

let db: TestDatabase;
let app: RunningApp;
let metrics: Metrics;
let key: string;
const lines: string[] = [];
const cipher = newCipher();

beforeAll(async () => {
  db = await createTestDatabase();
  await importDocument(db.orm.em.fork(), fixtureText(), cipher);
  key = await issueKey(db.orm.em, [ACME], true);
  const destination = new Writable({ write(chunk, _encoding, done) { lines.push(...chunk.toString().split('\n').filter(Boolean)); done(); } });
  metrics = new Metrics();
  app = await startApp(db.orm, cipher, undefined, { options: { logger: createLogger('info', destination), metrics } });
  // Flip one byte of one ciphertext: the authentication tag no longer matches.
  await db.query(`update secret set value_ciphertext = set_byte(value_ciphertext, 20, get_byte(value_ciphertext, 20) # 1)
                   where deployment_id = $1 and name = $2`, [ACME_DEPLOYMENT, DAMAGED]);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const failures = async () => (await metrics.unreadableSecrets.get()).values[0]?.value ?? 0;

describe('a secret that cannot be decrypted', () => {
  it('is null with a SECRET_UNREADABLE error on its path in GraphQL; everything else is served', async () => {
    const before = await failures();
    const { status, body } = await app.graphql(`{ deployments(limit: 10) { resources { uuid name secrets { name value } } } }`, { 'x-api-key': key });
    expect(status).toBe(200);
    const deployment = body.data.deployments.resources.find((d: { uuid: string }) => d.uuid === ACME_DEPLOYMENT);
    expect(deployment.secrets).toEqual([{ name: 'STRIPE_SECRET', value: VALUES.STRIPE_SECRET }, { name: DAMAGED, value: null }]);
    expect(body.errors).toHaveLength(1);
    const [error] = body.errors;
    const index = body.data.deployments.resources.indexOf(deployment);
    expect(error.path).toEqual(['deployments', 'resources', index, 'secrets', 1, 'value']);
    expect(error.extensions).toEqual({ code: 'SECRET_UNREADABLE' });
    expect(error.message).toContain(`"${DAMAGED}" of deployment ${ACME_DEPLOYMENT}`);
    expect(JSON.stringify(body)).not.toContain(VALUES.DB_PASSWORD);
    expect(await failures()).toBe(before + 1);
  });

  it('is masked on REST, and the page is a 200 with every other value', async () => {
    const response = await fetch(`${app.url}/v2/deployments`, { headers: { 'x-api-key': key } });
    expect(response.status).toBe(200);
    const page = await response.json();
    const deployment = page.resources.find((d: { id: string }) => d.id === ACME_DEPLOYMENT);
    expect(deployment.secrets).toEqual([{ name: 'STRIPE_SECRET', value: VALUES.STRIPE_SECRET }, { name: DAMAGED, value: MASKED_SECRET }]);
  });

  it('is logged as an error naming the deployment, the secret and the key, never the value', async () => {
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.level === 'error');
    expect(entries.length).toBeGreaterThanOrEqual(2); // one per request above
    expect(entries[0]).toMatchObject({
      msg: 'secret value cannot be decrypted: served as null (masked on REST)',
      deploymentId: ACME_DEPLOYMENT, secret: DAMAGED, keyFingerprint: cipher.fingerprint,
    });
    expect(entries[0]!.requestId).toEqual(expect.any(String));
    expect(lines.join('\n')).not.toContain(VALUES.DB_PASSWORD);
    const text = await (await fetch(`${app.url}/metrics`)).text();
    expect(text).toMatch(/^secret_decryption_failures_total [1-9]\d*$/m);
  });
});

describe('/ready', () => {
  it('is 503 while secrets are stored under a key this process does not have, and ready again once they are not', async () => {
    // Its checks are shared for up to a second: ask until the answer has the expected status.
    const ready = async (expected: number) => {
      for (const deadline = Date.now() + 5000; ;) {
        const response = await fetch(`${app.url}/ready`);
        const answer = { status: response.status, body: await response.json() };
        if (answer.status === expected || Date.now() > deadline) return answer;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    expect(await ready(200)).toEqual({ status: 200, body: { status: 'ready', checks: { database: 'ok', migrations: 'ok', secretsKey: 'ok' } } });

    // Another process, with another key, writes one secret.
    const other = newCipher();
    const doc = JSON.parse(fixtureText());
    doc.deployments[0].secrets.push({ name: 'WRITTEN_ELSEWHERE', value: 'v' });
    await importDocument(db.orm.em.fork(), JSON.stringify(doc), other);
    expect(await ready(503)).toEqual({
      status: 503,
      body: { status: 'unavailable', checks: { database: 'ok', migrations: 'ok', secretsKey: `the database holds secrets under key ${other.fingerprint}, which this process's keys do not read (see npm run secrets -- check)` } },
    });

    await importDocument(db.orm.em.fork(), fixtureText(), cipher);
    expect((await ready(200)).status).toBe(200);
  });
});
