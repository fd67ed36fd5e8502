// Where the data lives: DATABASE_URL when set (never touching the embedded server), otherwise the
// embedded PostgreSQL under DATA_DIR. Opens the ORM and applies pending migrations when asked to.
import { MikroORM } from '@mikro-orm/postgresql';
import path from 'node:path';
import pg from 'pg';
import type { Config } from '../config.ts';
import { startEmbeddedPostgres, type RunningPostgres } from './embedded-postgres.ts';
import { createOrmConfig, type AppOrm } from './orm-config.ts';

export const EMBEDDED_DATABASE_NAME = 'deployments';

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

async function connect(clientUrl: string, mode: Database['mode']): Promise<AppOrm> {
  const where = mode === 'external' ? `DATABASE_URL (${redactUrl(clientUrl)})` : 'the embedded PostgreSQL';
  // A plain connection first: its errors name the cause ("database ... does not exist", ECONNREFUSED).
  const probe = new pg.Client({ connectionString: clientUrl, connectionTimeoutMillis: 10_000 });
  try {
    await probe.connect();
  } catch (error) {
    throw new DatabaseUnavailableError(`Cannot connect to ${where}: ${oneLine(error)}`);
  } finally {
    await probe.end().catch(() => {});
  }
  return (await MikroORM.init(createOrmConfig({ clientUrl }))) as unknown as AppOrm;
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
  migrate: boolean;
  /** The service owns the embedded server ('own'); the CLIs join a running one ('join', the default). */
  whenRunning?: 'join' | 'own';
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

export async function openDatabase(config: Config, options: OpenOptions): Promise<Database> {
  let embedded: RunningPostgres | undefined;
  let clientUrl = config.databaseUrl;
  if (clientUrl === undefined) {
    const started = await startEmbeddedDatabase(config, options);
    embedded = started.server;
    clientUrl = started.clientUrl;
  }
  try {
    const orm = await connect(clientUrl, embedded ? 'embedded' : 'external');
    if (options.migrate) await migrate(orm);
    return {
      orm,
      mode: embedded ? 'embedded' : 'external',
      clientUrl,
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
