// A database of its own for each test file, migrated with the real migrations, dropped afterwards.
import { MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { createDatabaseIfMissing, migrate } from '../../src/db/database.ts';
import { createOrmConfig, type AppOrm } from '../../src/db/orm-config.ts';
import { entities } from '../../src/modules/entities.ts';

export interface TestDatabase {
  name: string;
  url: string;
  orm: AppOrm;
  /** A raw connection, for looking at what is really stored. */
  query<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

export function urlForDatabase(maintenanceUrl: string, name: string): string {
  const url = new URL(maintenanceUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates an empty database; `migrated: false` leaves it without tables. */
export async function createTestDatabase(options: {
  migrated?: boolean; onQuery?: (sql: string) => void; onStatement?: (sql: string, tookMs: number, failed: boolean) => void; onPoolCreated?: (pool: pg.Pool) => void;
} = {}): Promise<TestDatabase> {
  const maintenanceUrl = inject('postgresMaintenanceUrl');
  const name = `test_${randomBytes(6).toString('hex')}`;
  await createDatabaseIfMissing(maintenanceUrl, name);
  const url = urlForDatabase(maintenanceUrl, name);
  const orm = (await MikroORM.init(createOrmConfig({ entities, clientUrl: url, poolMax: 4, onQuery: options.onQuery, onStatement: options.onStatement, onPoolCreated: options.onPoolCreated }))) as unknown as AppOrm;
  if (options.migrated ?? true) await migrate(orm);
  const raw = new pg.Pool({ connectionString: url, max: 2 });
  return {
    name,
    url,
    orm,
    query: async (sql, params) => (await raw.query(sql, params)).rows,
    async drop() {
      await raw.end();
      await orm.close(true);
      const admin = new pg.Client({ connectionString: maintenanceUrl });
      await admin.connect();
      try {
        // A pool's end resolves once its clients are told to end, before their sessions have: forcing the drop
        // then would terminate a session that is closing, whose client reports it as an uncaught error. So the
        // drop waits for this file's own sessions to be gone (anything left after 2 s is forced off).
        for (const deadline = Date.now() + 2000; Date.now() < deadline;) {
          const { rows } = await admin.query('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
          if (rows[0].n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(name)} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** A migrated database for the enclosing test file or describe block: created before its tests, dropped after. */
export function useTestDatabase(): () => TestDatabase {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db?.drop());
  return () => db!;
}
