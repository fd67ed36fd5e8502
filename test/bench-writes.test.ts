// The benchmark's write scenarios must keep sending what the service accepts, and their ceilings must write the
// rows the service writes (a drift would only show as failed requests in `npm run bench`, minutes in); and the
// write tenant must be emptied without touching any other tenant's rows, which the read scenarios measure.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyFingerprint } from '../src/modules/secrets/key-fingerprint.ts';
import { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import { startProcess, stopProcess, type StartedProcess } from '../bench/service-load.ts';
import { writeScenarios } from '../bench/write-scenarios.ts';
import { emptyWriteTenant, prepareWriteTenant, WRITES_TENANT, type WriteTenant } from '../bench/write-tenant.ts';
import { ACME, importFixture, issueKey } from './support/fixtures.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const key = randomBytes(32);
let db: TestDatabase;
let app: RunningApp;
let ceiling: StartedProcess;
let ceilingUrl: string;
let tenant: WriteTenant;
let revealingKey: string;
const pool: string[] = [];
const [createCeiling, patchCeiling, ...serviceWrites] = writeScenarios(pool);

const countsByTenant = () => db.query<{ tenant_id: string; table: string; n: number }>(
  `select tenant_id, 'deployment' as table, count(*)::int as n from deployment group by 1
   union all select tenant_id, 'secret', count(*)::int from secret group by 1
   union all select tenant_id, 'revision', count(*)::int from revision group by 1 order by 1, 2`);

async function send(base: string, scenario: typeof createCeiling, apiKey?: string) {
  const { path, body } = scenario!.request!();
  const response = await fetch(`${base}${path}`, {
    method: scenario!.method, body, headers: { 'content-type': 'application/json', ...(apiKey && { 'x-api-key': apiKey }) },
  });
  return { status: response.status, body: await response.json() as Record<string, any> };
}

const readBack = async (id: string) => (await fetch(`${app.url}/v2/deployments/${id}`, { headers: { 'x-api-key': revealingKey } })).json() as Promise<Record<string, any>>;

beforeAll(async () => {
  db = await createTestDatabase();
  const cipher = new SecretCipher(key);
  await importFixture(db.orm.em.fork(), cipher);
  tenant = await prepareWriteTenant(db.orm.em, cipher);
  pool.push(...tenant.pool);
  revealingKey = await issueKey(db.orm.em, [WRITES_TENANT], true);
  app = await startApp(db.orm, cipher);
  const databaseUrl = db.orm.config.get('clientUrl')!;
  ceiling = await startProcess(['bench/ceiling.ts', databaseUrl, ACME, WRITES_TENANT], {
    ...process.env, CEILING_SECRETS_KEY: key.toString('base64'), CEILING_KEY_FINGERPRINT: keyFingerprint(key),
  }, /listening (\d+)/);
  ceilingUrl = `http://127.0.0.1:${ceiling.match[1]}`;
});
afterAll(async () => {
  if (ceiling) await stopProcess(ceiling);
  await app?.close();
  await db?.drop();
});

describe('the write scenarios (bench/write-scenarios.ts)', () => {
  it('are accepted by the service, each request a new deployment or a new revision of the next one of the pool', async () => {
    const [restCreate, restPatch, graphqlCreate, graphqlUpdate] = serviceWrites;
    const created = [await send(app.url, restCreate!, tenant.key), await send(app.url, restCreate!, tenant.key)];
    expect(created.map((r) => r.status)).toEqual([201, 201]);
    expect(created[0]!.body.name).not.toBe(created[1]!.body.name);
    expect(created[0]!.body.secrets.map((s: { name: string }) => s.name)).toEqual(['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'TAVILY_API_KEY', 'SLACK_BOT_TOKEN', 'LOG_LEVEL']);

    const before = await readBack(pool[0]!);
    const patched = await send(app.url, restPatch!, tenant.key);
    expect(patched.status).toBe(200);
    expect(patched.body.id).toBe(pool[0]);
    expect(patched.body.latest_revision_id).not.toBe(before.latest_revision_id);
    expect((await send(app.url, restPatch!, tenant.key)).body.id).toBe(pool[1]);

    const graphqlCreated = await send(app.url, graphqlCreate!, tenant.key);
    expect(graphqlCreated.body.data.createDeployment.__typename).toBe('CreateDeploymentPayload');
    const graphqlUpdated = await send(app.url, graphqlUpdate!, tenant.key);
    expect(graphqlUpdated.body.data.updateDeployment.deployment.uuid).toBe(pool[2]);
    expect(graphqlUpdated.body.data.updateDeployment.deployment.latestRevisionId).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('the write ceilings (bench/ceiling-writes.ts)', () => {
  it('write rows the service reads back as its own: the deployment, its secrets sealed with its key, a new revision', async () => {
    const created = await send(ceilingUrl, createCeiling!);
    expect(created.status).toBe(200);
    const record = await readBack(created.body.id);
    expect(record).toMatchObject({ name: created.body.name, source: 'internal_docker', status: 'AWAITING_DATABASE', latest_revision_id: null });
    expect(record.secrets.find((s: { name: string }) => s.name === 'LOG_LEVEL').value).toBe('info');

    const { status, body } = await send(ceilingUrl, patchCeiling!);
    expect(status).toBe(200);
    expect(pool).toContain(body.id);
    const after = await readBack(body.id);
    expect(after.latest_revision_id).toBe(body.latest_revision_id);
    expect(after.source_revision_config.image_uri).toMatch(/^registry\.example\.com\/bench-writes\/agent@sha256:[0-9a-f]{64}$/);
    expect(after.secrets.map((s: { value: string }) => s.value)).toContain('info');
    const revisions = await (await fetch(`${app.url}/v2/deployments/${body.id}/revisions`, { headers: { 'x-api-key': revealingKey } })).json() as { resources: { id: string; status: string }[] };
    expect(revisions.resources[0]).toMatchObject({ id: body.latest_revision_id, status: 'QUEUED' });
  });
});

describe('emptyWriteTenant (bench/write-tenant.ts)', () => {
  it('removes every row of the write tenant and leaves every other tenant\'s as they were', async () => {
    const others = (await countsByTenant()).filter((row) => row.tenant_id !== WRITES_TENANT);
    expect(others.some((row) => row.tenant_id === ACME && row.n > 0)).toBe(true);
    expect(await emptyWriteTenant(db.orm.em, { vacuum: true })).toBeGreaterThan(pool.length);
    expect(await countsByTenant()).toEqual(others);
  });
});
