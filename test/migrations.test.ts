import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

describe('migrations', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false });
  });
  afterAll(() => db.drop());

  it('apply to an empty database and leave nothing for the entities to change', async () => {
    expect(await db.orm.migrator.getPending()).not.toHaveLength(0);
    const applied = await db.orm.migrator.up();
    expect(applied.length).toBeGreaterThan(0);
    expect(await db.orm.migrator.getPending()).toHaveLength(0);

    // The schema the migrations produced is exactly what the entities describe.
    const diff = await db.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
  });

  it('create every table of the data model', async () => {
    const rows = await db.query<{ table_name: string }>(
      `select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
    );
    expect(rows.map((r) => r.table_name)).toEqual([
      'api_key', 'api_key_tenant', 'deployment', 'deployment_tag_value', 'idempotency_record', 'integration', 'listener', 'mikro_orm_migrations', 'registry_push_token',
      'revision', 'revision_lease', 'revision_log_line', 'secret', 'secret_reference', 'source_repository', 'source_upload', 'tag_key', 'tag_value', 'tenant', 'tenant_data_change', 'tenant_data_version',
    ]);
  });

  it('have a snapshot that matches the entities (no migration left to generate)', async () => {
    // checkSchema compares the committed snapshot with the entity metadata: true means a migration is missing.
    expect(await db.orm.migrator.checkSchema()).toBe(false);
  });
});

// A database that already holds revisions and integrations when the revision record's columns arrive: the
// migration gives the rows written before it the defaults an import of the older format gives
// (docs/decisions.md#revisions, #integration-installations), instead of failing on its NOT NULL columns.
describe('the migration that completes the revision record', () => {
  let db: TestDatabase;
  const [TENANT, DEPLOYMENT, REVISION, INTEGRATION] = ['a1000000-0000-4000-8000-000000000001', 'a2000000-0000-4000-8000-000000000001',
    'a3000000-0000-4000-8000-000000000001', 'a4000000-0000-4000-8000-000000000001'];
  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false });
  });
  afterAll(() => db.drop());

  it('fills updated_at, source and remote_reconciled of existing revisions, and leaves installation ids unknown', async () => {
    await db.orm.migrator.up({ to: 'Migration20261123051002_secret_key_fingerprint' });
    await db.query(`insert into tenant values ($1, 'acme', now(), now())`, [TENANT]);
    await db.query(`insert into integration values ($1, $2, 'codehost', 'github', 'acme-org', now(), now())`, [INTEGRATION, TENANT]);
    await db.query(`insert into deployment (id, tenant_id, name, status, source, deployment_type, source_config, created_at, updated_at)
      values ($1, $2, 'app', 'READY', 'internal_source', 'dev', '{}', now(), now())`, [DEPLOYMENT, TENANT]);
    await db.query(`insert into revision values ($1, $2, $3, 'DEPLOYED', '2026-01-02T03:04:05.678Z')`, [REVISION, TENANT, DEPLOYMENT]);
    await db.orm.migrator.up();
    const [revision] = await db.query<{ updated_at: Date }>('select source, source_revision_config, remote_reconciled, updated_at from revision');
    expect({ ...revision, updated_at: revision!.updated_at.toISOString() })
      .toEqual({ source: 'internal_source', source_revision_config: null, remote_reconciled: false, updated_at: '2026-01-02T03:04:05.678Z' });
    expect(await db.query('select installation_id from integration')).toEqual([{ installation_id: null }]);
    expect((await db.orm.schema.getUpdateSchemaSQL({ wrap: false })).trim()).toBe('');
  });
});
