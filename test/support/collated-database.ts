// A test database whose default collation is a linguistic one (ICU), as on most production servers
// (en_US.UTF-8 and the like), instead of the C collation the embedded test server is initialised with.
import { MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { migrate } from '../../src/db/database.ts';
import { createOrmConfig, type AppOrm } from '../../src/db/orm-config.ts';
import { entities } from '../../src/modules/entities.ts';
import { urlForDatabase } from './test-database.ts';

export interface CollatedDatabase {
  orm: AppOrm;
  drop(): Promise<void>;
}

async function onMaintenance<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: inject('postgresMaintenanceUrl') });
  await admin.connect();
  try {
    return await run(admin);
  } finally {
    await admin.end();
  }
}

/** A migrated database with ICU collation `icuLocale`, or null when the server has no ICU support. */
export async function createIcuTestDatabase(icuLocale: string): Promise<CollatedDatabase | null> {
  const name = `test_icu_${randomBytes(6).toString('hex')}`;
  const created = await onMaintenance(async (admin) => {
    try {
      await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)} TEMPLATE template0 ENCODING 'UTF8'
        LOCALE_PROVIDER icu ICU_LOCALE ${admin.escapeLiteral(icuLocale)} LC_COLLATE 'C' LC_CTYPE 'C'`);
      return true;
    } catch (error) {
      if (/ICU is not supported|locale provider/i.test(String(error))) return false;
      throw error;
    }
  });
  if (!created) return null;
  const orm = (await MikroORM.init(createOrmConfig({ entities, clientUrl: urlForDatabase(inject('postgresMaintenanceUrl'), name), poolMax: 2 }))) as unknown as AppOrm;
  await migrate(orm);
  return {
    orm,
    async drop() {
      await orm.close(true);
      await onMaintenance((admin) => admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(name)} WITH (FORCE)`));
    },
  };
}
