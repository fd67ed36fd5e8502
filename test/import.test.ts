// The import (docs/decisions.md#data-import): a document round-trips to the records the service serves, a
// re-import changes nothing, changes are applied and counted, and a bad document is rejected whole.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importDocument, type ImportSummary } from '../src/import/importer.ts';
import { ImportError } from '../src/import/import-error.ts';
import { DeploymentSchema } from '../src/modules/deployments/deployment.entity.ts';
import { toDeploymentRecord } from './support/deployment-record.ts';
import { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import { SourceRepositorySchema } from '../src/modules/integrations/source-repository.entity.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import {
  ACME, ACME_DEPLOYMENT as CHECKOUT, ACME_INTEGRATION, GLOBEX, GLOBEX_DEPLOYMENT as OTHER, fixtureText,
} from './support/fixtures.ts';

const FIXTURE = fixtureText();
// CHECKOUT (acme) has every field set; OTHER (globex) is sparse.
const PROD = '77777777-7777-4777-8777-777777777771'; // acme tag env=prod
const PAYMENTS = '77777777-7777-4777-8777-777777777773'; // acme tag team=payments
const UNKNOWN = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';

// The fixture is deliberately untyped JSON: tests poke at it to build bad documents.
type Json = any;
/** A fresh copy of the fixture, changed by `edit`, as document text. */
function fixtureWith(edit: (doc: Json) => void = () => {}): string {
  const doc = JSON.parse(FIXTURE);
  edit(doc);
  return JSON.stringify(doc);
}
const fixtureDeployment = (index: number): Json => JSON.parse(FIXTURE).deployments[index];

describe('import', () => {
  let db: TestDatabase;
  const cipher = new SecretCipher(randomBytes(32));
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  const importText = (text: string): Promise<ImportSummary> => importDocument(db.orm.em, text, cipher);

  async function tables(): Promise<string[]> {
    const rows = await db.query<{ table_name: string }>(
      `select table_name from information_schema.tables where table_schema = 'public' and table_name <> 'mikro_orm_migrations' order by 1`,
    );
    return rows.map((r) => r.table_name);
  }

  async function resetDatabase(): Promise<void> {
    await db.query(`truncate ${(await tables()).map((t) => `"${t}"`).join(', ')} cascade`);
  }

  /** Every row of every table (every column, ciphertexts included), in a stable order. */
  async function dump(): Promise<Record<string, string[]>> {
    const out: Record<string, string[]> = {};
    for (const table of await tables()) {
      out[table] = (await db.query<{ row: string }>(`select t::text as row from "${table}" t order by 1`)).map((r) => r.row);
    }
    return out;
  }

  /** The deployment as GET /v2/deployments would show it, read back through the entities. */
  async function readRecord(id: string) {
    const em = db.orm.em.fork();
    const deployment = await em.findOneOrFail(DeploymentSchema, { id }, { filters: false, populate: ['secrets', 'secretReferences'] });
    const secrets = deployment.secrets.getItems()
      .map((s) => ({ name: s.name, value: cipher.decrypt(s.valueCiphertext, { deploymentId: id, name: s.name }, s.keyFingerprint ?? null) }));
    return toDeploymentRecord(deployment, { secrets, secretReferences: deployment.secretReferences.getItems() });
  }

  /** Expects the document to be rejected naming `path`, with the database exactly as it was. */
  async function expectRejected(text: string, path: string, problem: RegExp): Promise<void> {
    const before = await dump();
    const error = await (async () => importText(text))().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).path).toBe(path);
    expect((error as ImportError).message).toMatch(problem);
    if (path) expect((error as ImportError).message.startsWith(`${path}: `)).toBe(true);
    expect(await dump()).toEqual(before);
  }

  describe('round trip', () => {
    beforeAll(async () => {
      await resetDatabase();
      await importText(FIXTURE);
    });

    it('serves the full deployment exactly as the document gave it', async () => {
      const { remote_reconciled, tag_value_ids, revisions, ...expected } = fixtureDeployment(0);
      const record = await readRecord(CHECKOUT);
      expect(record).toStrictEqual(expected);
      expect(Object.keys(record)).toEqual(Object.keys(expected));
      expect(Object.keys(record.source_config as object)).toEqual(Object.keys(expected.source_config));
    });

    it('serves the sparse deployment with every absent key as null and empty lists as []', async () => {
      expect(await readRecord(OTHER)).toStrictEqual({
        name: 'other-tenant-app',
        source_config: {
          integration_id: null, repo_url: null, build_on_push: null, custom_url: null, resource_spec: null,
          listener_id: null, listener_config: null, install_command: null, build_command: null, deployment_type: 'dev',
        },
        source_revision_config: null,
        secrets: [{ name: 'OTHER_SECRET', value: 'tenant-two-secret-value' }],
        id: OTHER,
        tenant_id: GLOBEX,
        created_at: '2026-02-01T00:00:00.000Z',
        updated_at: '2026-02-01T00:00:00.000Z',
        latest_revision_id: null,
        active_revision_id: null,
        secret_references: [],
        image_version: null,
        status: 'UNUSED',
        source: 'external_docker',
      });
    });

    it('stores remote_reconciled, tag links and revisions', async () => {
      expect(await db.query(`select id, tenant_id, remote_reconciled from deployment order by id`)).toEqual([
        { id: CHECKOUT, tenant_id: ACME, remote_reconciled: true },
        { id: OTHER, tenant_id: GLOBEX, remote_reconciled: false },
      ]);
      expect(await db.query(`select deployment_id, tag_value_id from deployment_tag_value order by 1, 2`)).toEqual([
        { deployment_id: CHECKOUT, tag_value_id: PROD },
        { deployment_id: CHECKOUT, tag_value_id: PAYMENTS },
      ]);
      const revisions = await db.query<{ created_at: Date }>(
        `select id, tenant_id, deployment_id, status, created_at from revision order by id`);
      expect(revisions.map((r) => ({ ...r, created_at: r.created_at.toISOString() }))).toEqual([
        { id: '66666666-6666-4666-8666-666666666661', tenant_id: ACME, deployment_id: CHECKOUT, status: 'DEPLOYED', created_at: '2026-03-01T10:05:00.000Z' },
        { id: '66666666-6666-4666-8666-666666666662', tenant_id: ACME, deployment_id: CHECKOUT, status: 'BUILDING', created_at: '2026-03-02T11:30:00.000Z' },
      ]);
    });

    it('stores tenants, tags and integrations with their repositories (ids above 2^31 intact)', async () => {
      expect(await db.query(`select id, name from tenant order by id`)).toEqual([{ id: ACME, name: 'acme' }, { id: GLOBEX, name: 'globex' }]);
      expect(await db.query(
        `select k.tenant_id, k.key, v.id, v.value, v.tenant_id = k.tenant_id as same_tenant from tag_value v join tag_key k on k.id = v.tag_key_id order by v.id`,
      )).toEqual([
        { tenant_id: ACME, key: 'env', id: PROD, value: 'prod', same_tenant: true },
        { tenant_id: ACME, key: 'env', id: '77777777-7777-4777-8777-777777777772', value: 'staging', same_tenant: true },
        { tenant_id: ACME, key: 'team', id: PAYMENTS, value: 'payments', same_tenant: true },
      ]);
      expect(await db.query(`select id, tenant_id, kind, codehost, name from integration order by id`)).toEqual([
        { id: ACME_INTEGRATION, tenant_id: ACME, kind: 'codehost', codehost: 'github', name: 'acme-org' },
        { id: '99999999-9999-4999-8999-999999999999', tenant_id: GLOBEX, kind: 'managed', codehost: 'github', name: 'globex-managed' },
      ]);
      expect(await db.query(
        `select integration_id, tenant_id, code_host_id::text, name, owner, url, default_branch from source_repository order by code_host_id`,
      )).toEqual([
        { integration_id: ACME_INTEGRATION, tenant_id: ACME, code_host_id: '123456', name: 'checkout', owner: 'acme', url: 'https://github.com/acme/checkout', default_branch: 'main' },
        { integration_id: ACME_INTEGRATION, tenant_id: ACME, code_host_id: '3000000001', name: 'big-id', owner: 'acme', url: 'https://github.com/acme/big-id', default_branch: 'trunk' },
      ]);
      const repos = await db.orm.em.fork().find(SourceRepositorySchema, {}, { filters: false, orderBy: { codeHostId: 'asc' } });
      expect(repos.map((r) => r.codeHostId)).toEqual([123456, 3000000001]);
    });
  });

  describe('re-importing', () => {
    beforeAll(async () => {
      await resetDatabase();
    });

    it('counts every row of a first import as created', async () => {
      // 2 tenants, 2 tag keys, 3 tag values, 2 integrations, 2 repositories, 2 deployments, 3 secrets,
      // 1 secret reference, 2 revisions (tag links are pivot rows, not entities).
      expect(await importText(FIXTURE)).toEqual({ created: 19, updated: 0, deleted: 0 });
    });

    it('changes nothing the second time, not even a ciphertext or a timestamp', async () => {
      const before = await dump();
      expect(before.secret).toHaveLength(3);
      expect(await importText(FIXTURE)).toEqual({ created: 0, updated: 0, deleted: 0 });
      expect(await dump()).toEqual(before);
    });
  });

  describe('changes', () => {
    beforeEach(async () => {
      await resetDatabase();
      await importText(FIXTURE);
    });

    const counts = (created: number, updated: number, deleted: number): ImportSummary => ({ created, updated, deleted });
    const checkout = () => readRecord(CHECKOUT);
    const secretsOfCheckout = async () => (await checkout()).secrets;

    // Each row: what the document changes, the summary the import must report, and what must be stored after.
    it.each<[string, (doc: Json) => void, ImportSummary, () => Promise<unknown>, unknown]>([
      ['renames a deployment', (doc) => { doc.deployments[0].name = 'checkout-production'; }, counts(0, 1, 0),
        async () => (await checkout()).name, 'checkout-production'],
      ['clears a field the document no longer gives', (doc) => { delete doc.deployments[0].image_version; }, counts(0, 1, 0),
        async () => (await checkout()).image_version, null],
      ['flips remote_reconciled', (doc) => { doc.deployments[0].remote_reconciled = false; }, counts(0, 1, 0),
        () => db.query(`select remote_reconciled from deployment where id = $1`, [CHECKOUT]), [{ remote_reconciled: false }]],
      ['deletes a secret the document no longer lists', (doc) => { doc.deployments[0].secrets.splice(1, 1); }, counts(0, 0, 1),
        secretsOfCheckout, [{ name: 'STRIPE_SECRET', value: 'sk_live_fixture_Zq8' }]],
      // NEW is created at 0; DB_PASSWORD stays at 1; STRIPE_SECRET moves from 0 to 2 (one update).
      ['adds a secret and follows a new order of the list',
        (doc) => { doc.deployments[0].secrets = [{ name: 'NEW', value: 'n' }, ...doc.deployments[0].secrets.reverse()]; }, counts(1, 1, 0),
        secretsOfCheckout, [
          { name: 'NEW', value: 'n' }, { name: 'DB_PASSWORD', value: 'correct horse battery staple' },
          { name: 'STRIPE_SECRET', value: 'sk_live_fixture_Zq8' },
        ]],
      ['deletes a repository the integration no longer lists', (doc) => { doc.integrations[0].repositories.shift(); }, counts(0, 0, 1),
        () => db.query(`select code_host_id::text as id from source_repository`), [{ id: '3000000001' }]],
      ['normalises a timestamp with an offset to UTC', (doc) => { doc.deployments[1].updated_at = '2026-02-01T02:00:00.5+02:00'; },
        counts(0, 1, 0), async () => (await readRecord(OTHER)).updated_at, '2026-02-01T00:00:00.500Z'],
      ['sees the same instant written with an offset as no change', (doc) => { doc.deployments[1].created_at = '2026-02-01T01:00:00+01:00'; },
        counts(0, 0, 0), async () => (await readRecord(OTHER)).created_at, '2026-02-01T00:00:00.000Z'],
      // A change of the tag links alone must count too: `npm run import` prints "no changes" for 0/0/0.
      ['replaces the tag links', (doc) => { doc.deployments[0].tag_value_ids = [PROD]; }, counts(0, 1, 0),
        () => db.query(`select deployment_id, tag_value_id from deployment_tag_value`), [{ deployment_id: CHECKOUT, tag_value_id: PROD }]],
    ])('%s', async (_, edit, expectedSummary, stored, expected) => {
      const summary = await importText(fixtureWith(edit));
      expect(await stored()).toEqual(expected); // applied ...
      expect(summary).toEqual(expectedSummary); // ... and counted
    });

    it('re-encrypts a changed secret value', async () => {
      const ciphertext = async () =>
        (await db.query<{ value_ciphertext: Buffer }>(`select value_ciphertext from secret where name = 'STRIPE_SECRET'`))[0]!.value_ciphertext;
      const before = await ciphertext();
      expect(await importText(fixtureWith((doc) => { doc.deployments[0].secrets[0].value = 'sk_live_rotated'; }))).toEqual(counts(0, 1, 0));
      expect((await ciphertext()).equals(before)).toBe(false);
      expect(await secretsOfCheckout()).toEqual([
        { name: 'STRIPE_SECRET', value: 'sk_live_rotated' }, { name: 'DB_PASSWORD', value: 'correct horse battery staple' },
      ]);
    });

    it('fills every key a partial resource spec leaves out with null, keeping false and 0', async () => {
      const fullSpec = fixtureDeployment(0).source_config.resource_spec;
      await importText(fixtureWith((doc) => {
        Object.assign(doc.deployments[1].source_config, { build_on_push: false, resource_spec: { min_scale: 0, sidecars: [{ name: 'proxy' }] } });
      }));
      const nulls = (keysOf: object) => Object.fromEntries(Object.keys(keysOf).map((key) => [key, null]));
      const { source_config: config } = (await readRecord(OTHER)) as Json;
      expect(config.resource_spec).toStrictEqual({ ...nulls(fullSpec), min_scale: 0, sidecars: [{ ...nulls(fullSpec.sidecars[0]), name: 'proxy' }] });
      expect(config.build_on_push).toBe(false);
      expect(config.repo_url).toBeNull();
    });
  });

  describe('rejects a bad document whole, naming the offending path', () => {
    beforeEach(() => resetDatabase());
    const deployment = (edit: (d: Json, doc: Json) => void, index = 0) => fixtureWith((doc) => edit(doc.deployments[index], doc));

    it.each([
      ['invalid JSON', '{"tenants": [', '', /not valid JSON/],
      ['an unknown key', deployment((d) => { d.source_config.resource_spec.cpuu = 1; }),
        'deployments[0].source_config.resource_spec', /unknown key "cpuu"/],
      ['a fractional integer', deployment((d) => { d.source_config.resource_spec.memory_mb = 1.5; }),
        'deployments[0].source_config.resource_spec.memory_mb', /int/],
      ['a bad UUID', deployment((d) => { d.id = '55555555-5555-4555-8555-55555555555'; }, 1), 'deployments[1].id', /UUID/],
      ['a bad status', deployment((d) => { d.status = 'RUNNING'; }), 'deployments[0].status', /READY/],
      ['a duplicate deployment id (in another case)',
        fixtureWith((doc) => { doc.deployments[0].id = UNKNOWN; doc.deployments[1].id = UNKNOWN.toUpperCase(); }),
        'deployments[1]', /duplicate deployment id "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"/],
      ['a tag value of another tenant', deployment((d) => { d.tag_value_ids = [PROD]; }, 1),
        'deployments[1].tag_value_ids[0]', /does not exist in tenant/],
      ['a NUL character PostgreSQL cannot store (in free-form JSON too)',
        deployment((d) => { d.source_config.resource_spec.labels = { app: 'a\u0000b' }; }),
        'deployments[0].source_config.resource_spec.labels.app', /NUL character/],
      ['a tenant neither declared nor stored', fixtureWith((doc) => { doc.tenants.pop(); }),
        'integrations[1].tenant_id', /tenant 22222222-2222-4222-8222-222222222222 is neither/],
    ])('%s', async (_, text, path, problem) => {
      await expectRejected(text, path, problem);
      expect(Object.values(await dump()).flat()).toEqual([]);
    });

    it('writes none of the valid deployments before an invalid last one', async () => {
      const text = fixtureWith((doc) => {
        doc.deployments.push({ ...fixtureDeployment(1), id: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', tag_value_ids: [UNKNOWN] });
      });
      await expectRejected(text, 'deployments[2].tag_value_ids[0]', /does not exist/);
      expect(Object.values(await dump()).flat()).toEqual([]);
    });
  });

  describe('refuses to move or reach into another tenant\'s rows', () => {
    beforeAll(async () => {
      await resetDatabase();
      await importText(FIXTURE);
    });
    const only = (part: Json) => JSON.stringify(part);

    it('a deployment id of another tenant', async () => {
      await expectRejected(only({ deployments: [{ ...fixtureDeployment(0), tenant_id: GLOBEX, tag_value_ids: [] }] }),
        'deployments[0].id', /another tenant/);
      expect(await db.query(`select tenant_id, name from deployment where id = $1`, [CHECKOUT])).toEqual([{ tenant_id: ACME, name: 'checkout-prod' }]);
      expect((await readRecord(CHECKOUT)).secrets).toHaveLength(2);
    });

    it('an integration id of another tenant', async () => {
      const integration = JSON.parse(FIXTURE).integrations[0];
      await expectRejected(only({ integrations: [{ ...integration, tenant_id: GLOBEX, name: 'stolen' }] }), 'integrations[0].id', /another tenant/);
      expect(await db.query(`select tenant_id, name from integration where id = $1`, [ACME_INTEGRATION])).toEqual([{ tenant_id: ACME, name: 'acme-org' }]);
    });

    it('a stored tag value of another tenant', async () => {
      await expectRejected(only({ deployments: [{ ...fixtureDeployment(1), tag_value_ids: [PAYMENTS] }] }),
        'deployments[0].tag_value_ids[0]', /does not exist in tenant/);
      await expectRejected(only({ tags: [{ tenant_id: GLOBEX, key: 'env', values: [{ id: PROD, value: 'prod' }] }] }),
        'tags[0].values[0].id', /another tenant/);
    });

    it('a source_config.integration_id of another tenant (an unknown one is kept as given)', async () => {
      const globexApp = fixtureDeployment(1);
      await expectRejected(only({ deployments: [{ ...globexApp, source_config: { ...globexApp.source_config, integration_id: ACME_INTEGRATION } }] }),
        'deployments[0].source_config.integration_id', /belongs to another tenant/);
      await importText(only({ deployments: [{ ...globexApp, source_config: { ...globexApp.source_config, integration_id: UNKNOWN } }] }));
      expect((await readRecord(OTHER)).source_config).toMatchObject({ integration_id: UNKNOWN });
    });

    it('a revision of another deployment', async () => {
      const revisions = [{ id: '66666666-6666-4666-8666-666666666661', status: 'DEPLOYED', created_at: '2026-03-01T10:05:00Z' }];
      await expectRejected(only({ deployments: [{ ...fixtureDeployment(1), revisions }] }), 'deployments[0].revisions[0].id', /belongs to deployment/);
    });

    it('an invalid last deployment after valid new ones', async () => {
      const fresh = { ...fixtureDeployment(1), id: 'cccccccc-cccc-4ccc-8ccc-cccccccccccc', name: 'new-app' };
      await expectRejected(only({ deployments: [fresh, { ...fixtureDeployment(0), tenant_id: GLOBEX, tag_value_ids: [] }] }),
        'deployments[1].id', /another tenant/);
    });
  });
});
