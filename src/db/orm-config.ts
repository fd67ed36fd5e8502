// The one MikroORM configuration, shared by the server, the CLIs and the tests.
import { defineConfig, type MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import path from 'node:path';
import { PROJECT_ROOT } from '../config.ts';
import { entities } from './entities.ts';
import { TenantSafeEntityManager } from './tenant-safe-entity-manager.ts';

/** The ORM as this project configures it: its EntityManager is a TenantSafeEntityManager. */
export type AppOrm = MikroORM<TenantSafeEntityManager>;

export const MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'migrations');

export interface OrmConfigOptions {
  clientUrl: string;
  /** Log every SQL statement (off by default; statements may carry data). */
  debug?: boolean;
  poolMax?: number;
}

export function createOrmConfig({ clientUrl, debug = false, poolMax = 10 }: OrmConfigOptions): Options<TenantSafeEntityManager> {
  return defineConfig({
    entityManager: TenantSafeEntityManager,
    clientUrl,
    entities,
    extensions: [Migrator],
    debug,
    pool: { min: 0, max: poolMax },
    // Entities are defined with defineEntity: no reflection, no folder scanning.
    discovery: { warnWhenNoEntities: true },
    // A request works on its own fork; the global EntityManager must never collect state.
    allowGlobalContext: false,
    // A mistyped DATABASE_URL must fail, not silently create (and serve) an empty database.
    ensureDatabase: false,
    migrations: {
      path: MIGRATIONS_DIR,
      pathTs: MIGRATIONS_DIR,
      emit: 'ts',
      glob: '!(*.d).ts',
      // Applying migrations must not write into the source tree; only `migration:create` updates the snapshot.
      snapshotOnMigrate: false,
      snapshotName: '.snapshot',
      silent: true,
    },
  });
}
