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
      'api_key', 'api_key_tenant', 'deployment', 'deployment_tag_value', 'integration', 'mikro_orm_migrations',
      'revision', 'secret', 'secret_reference', 'source_repository', 'tag_key', 'tag_value', 'tenant',
    ]);
  });

  it('have a snapshot that matches the entities (no migration left to generate)', async () => {
    // checkSchema compares the committed snapshot with the entity metadata: true means a migration is missing.
    expect(await db.orm.migrator.checkSchema()).toBe(false);
  });
});
