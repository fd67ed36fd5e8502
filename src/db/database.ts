// Where the data lives: DATABASE_URL when set (never touching the embedded server), otherwise the
// embedded PostgreSQL under DATA_DIR. Opens the ORM and applies pending migrations when asked to.
import { MikroORM } from '@mikro-orm/postgresql';
import path from 'node:path';
import pg from 'pg';
import type { Config, DatabasePooler, DatabaseTimeouts } from '../config.ts';
import { startEmbeddedPostgres, type RunningPostgres } from './embedded-postgres.ts';
import { createOrmConfig, type AppOrm, type OrmEntities } from './orm-config.ts';

export const EMBEDDED_DATABASE_NAME = 'deployments';

/** The CLIs (import, migrate) may run long statements on purpose; only connecting is bounded. */
const CLI_TIMEOUTS: DatabaseTimeouts = { poolMax: 10, connectTimeoutMs: 10_000, statementTimeoutMs: 0 };

/** The database cannot be reached or used; the message is one line and never shows a password. */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
}

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

async function connect(clientUrl: string, where: string, options: OpenOptions, pooler: DatabasePooler = 'none'): Promise<AppOrm> {
  const { poolMax, ...timeouts } = options.timeouts ?? CLI_TIMEOUTS;
  const startupStatementTimeout = pooler === 'none';
  // A plain connection first: its errors name the cause ("database ... does not exist", ECONNREFUSED). It sends
  // the startup parameter the pool will send, so that a pooler refusing it is named here, not on a first request.
  const probe = new pg.Client({
    connectionString: clientUrl, connectionTimeoutMillis: 10_000,
    ...(startupStatementTimeout && timeouts.statementTimeoutMs > 0 && { statement_timeout: timeouts.statementTimeoutMs }),
  });
  try {
    await probe.connect();
  } catch (error) {
    if (/unsupported startup parameter/.test(oneLine(error))) {
      throw new DatabaseUnavailableError(`${where} refuses the startup parameter statement_timeout, as PgBouncer does: `
        + 'behind a pooler in transaction mode set DATABASE_POOLER=transaction and DATABASE_DIRECT_URL (docs/operations.md#behind-pgbouncer)');
    }
    throw new DatabaseUnavailableError(`Cannot connect to ${where}: ${oneLine(error)}`);
  } finally {
    await probe.end().catch(() => {});
  }
  const ormConfig = createOrmConfig({ clientUrl, entities: options.entities, poolMax, timeouts, onPoolCreated: options.onPoolCreated, startupStatementTimeout, onStatement: options.onStatement });
  return (await MikroORM.init(ormConfig)) as unknown as AppOrm;
}

function oneLine(error: unknown): string {
  const err = error as NodeJS.ErrnoException | string;
  const text = typeof err === 'string' ? err : `${err.code && !err.message.includes(err.code) ? `${err.code} ` : ''}${err.message}`;
  return text.replace(/\s+/g, ' ').trim();
}

export interface Database {
  orm: AppOrm;
  mode: 'embedded' | 'external';
  /** The connection URL in use (the embedded server's includes its generated password). */
  clientUrl: string;
  /** A connection that keeps its session, for LISTEN and migrations: DATABASE_DIRECT_URL, or clientUrl. */
  directUrl: string;
  /** How clientUrl reaches PostgreSQL (always 'none' for the embedded server). */
  pooler: DatabasePooler;
  close(): Promise<void>;
}

export async function createDatabaseIfMissing(maintenanceUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: maintenanceUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

export interface OpenOptions {
  /** The entities the ORM maps (modules/entities.ts): the data layer does not import the domain. */
  entities: OrmEntities;
  migrate: boolean;
  /** The service owns the embedded server ('own'); the CLIs join a running one ('join', the default). */
  whenRunning?: 'join' | 'own';
  /** Pool size and timeouts (the service passes its configuration; the CLIs keep the defaults). */
  timeouts?: DatabaseTimeouts;
  onPoolCreated?: (pool: pg.Pool) => void;
  /** After every SQL statement the ORM runs (tracing's spans). */
  onStatement?: (sql: string, tookMs: number, failed: boolean) => void;
}

async function startEmbeddedDatabase(config: Config, options: OpenOptions): Promise<{ server: RunningPostgres; clientUrl: string }> {
  const server = await startEmbeddedPostgres({
    clusterDir: path.join(config.dataDir, 'postgres'),
    port: config.embeddedPostgresPort,
    whenRunning: options.whenRunning ?? 'join',
  });
  try {
    await createDatabaseIfMissing(server.databaseUrl('postgres'), EMBEDDED_DATABASE_NAME);
  } catch (error) {
    await server.stop();
    throw new DatabaseUnavailableError(`Cannot prepare the embedded PostgreSQL: ${oneLine(error)}`);
  }
  return { server, clientUrl: server.databaseUrl(EMBEDDED_DATABASE_NAME) };
}

/** Applies every pending migration; returns the names it applied. */
export async function migrate(orm: AppOrm): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((migration) => migration.name);
}

/**
 * Migrations get their own connection, direct (never through a transaction pooler) and without the serving
 * statement timeout: they may rewrite large tables.
 */
async function migrateWithoutStatementTimeout(directUrl: string, where: string, options: OpenOptions): Promise<void> {
  const { connectTimeoutMs } = options.timeouts ?? CLI_TIMEOUTS;
  const orm = await connect(directUrl, where, { ...options, timeouts: { poolMax: 1, connectTimeoutMs, statementTimeoutMs: 0 }, onPoolCreated: undefined, onStatement: undefined });
  try {
    await migrate(orm);
  } finally {
    await orm.close();
  }
}

export async function openDatabase(config: Config, options: OpenOptions): Promise<Database> {
  let embedded: RunningPostgres | undefined;
  let clientUrl = config.databaseUrl;
  if (clientUrl === undefined) {
    const started = await startEmbeddedDatabase(config, options);
    embedded = started.server;
    clientUrl = started.clientUrl;
  }
  try {
    const mode = embedded ? 'embedded' : 'external';
    const pooler = embedded ? 'none' : config.databasePooler;
    const directUrl = embedded ? clientUrl : config.databaseDirectUrl ?? clientUrl;
    const where = embedded ? 'the embedded PostgreSQL' : `DATABASE_URL (${redactUrl(clientUrl)})`;
    const directWhere = directUrl === clientUrl ? where : `DATABASE_DIRECT_URL (${redactUrl(directUrl)})`;
    if (options.migrate) await migrateWithoutStatementTimeout(directUrl, directWhere, options);
    const orm = await connect(clientUrl, where, options, pooler);
    return {
      orm,
      mode,
      clientUrl,
      directUrl,
      pooler,
      async close() {
        await orm.close();
        await embedded?.stop();
      },
    };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}
