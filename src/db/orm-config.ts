// The one MikroORM configuration, shared by the server, the CLIs and the tests.
import { DefaultLogger, defineConfig, type LogContext, type LoggerOptions, type MikroORM, type Options } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { Migrator } from '@mikro-orm/migrations';
import path from 'node:path';
import { DEFAULT_POOL_MAX, PROJECT_ROOT, type DatabaseTimeouts } from '../config.ts';
import { CallbackQueryClient } from './callback-query-client.ts';
import { markIfSentWithNext } from './statements-sent-with-next.ts';
import { TenantSafeEntityManager } from './tenant-safe-entity-manager.ts';

/** The ORM as this project configures it: its EntityManager is a TenantSafeEntityManager. */
export type AppOrm = MikroORM<TenantSafeEntityManager>;

export const MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'migrations');

/** The entities the ORM maps: the domain's list (modules/entities.ts), given by whoever opens the ORM. */
export type OrmEntities = Options['entities'];

export interface OrmConfigOptions {
  clientUrl: string;
  entities: OrmEntities;
  /** Log every SQL statement (off by default; statements may carry data). */
  debug?: boolean;
  poolMax?: number;
  /** Called with every SQL statement before it runs (statement counts in tests and the benchmark). */
  onQuery?: (sql: string) => void;
  /** Bounds on waiting for the database; without them a lost database hangs requests instead of failing them. */
  timeouts?: Omit<DatabaseTimeouts, 'poolMax'>;
  /** Receives the `pg` pool once created (pool metrics). */
  onPoolCreated?: (pool: pg.Pool) => void;
  /**
   * Send statement_timeout as a startup parameter (default). Off behind a transaction pooler, which refuses
   * startup parameters and may run each transaction on another server connection: the server's own setting
   * (ALTER ROLE … SET statement_timeout) applies there, and the client-side limit below stays.
   */
  startupStatementTimeout?: boolean;
  /** Called after every SQL statement with its text (placeholders, never values) and duration: tracing. */
  onStatement?: (sql: string, tookMs: number, failed: boolean) => void;
}

/**
 * The ORM reports every statement it ran to its logger (text with placeholders unless query-params logging is
 * on, which this project never turns on, and how long it took), whether or not query logging is enabled.
 */
class StatementReportingLogger extends DefaultLogger {
  readonly #onStatement: NonNullable<OrmConfigOptions['onStatement']>;
  constructor(options: LoggerOptions, onStatement: NonNullable<OrmConfigOptions['onStatement']>) {
    super(options);
    this.#onStatement = onStatement;
  }

  override logQuery(context: { query: string } & LogContext): void {
    if ((context.namespace ?? 'query') === 'query' && context.took !== undefined) {
      this.#onStatement(context.query, context.took, context.level === 'error');
    }
    super.logQuery(context);
  }
}

export const DEFAULT_TIMEOUTS: Omit<DatabaseTimeouts, 'poolMax'> = { connectTimeoutMs: 3000, statementTimeoutMs: 10_000 };

export function createOrmConfig({
  clientUrl, entities, debug = false, poolMax = DEFAULT_POOL_MAX, onQuery, timeouts = DEFAULT_TIMEOUTS, onPoolCreated, startupStatementTimeout = true, onStatement,
}: OrmConfigOptions): Options<TenantSafeEntityManager> {
  return defineConfig({
    entityManager: TenantSafeEntityManager,
    clientUrl,
    entities,
    extensions: [Migrator],
    debug,
    // Counted as the statements they are; a write's may then wait to go with the next (statements-sent-with-next.ts).
    onQuery: onQuery ? (sql: string) => (onQuery(sql), markIfSentWithNext(sql)) : markIfSentWithNext,
    ...(onStatement && { loggerFactory: (options: LoggerOptions) => new StatementReportingLogger(options, onStatement) }),
    pool: { min: 0, max: poolMax },
    driverOptions: {
      // pg's client, with its queries given their callbacks up front and the read timeout below kept by it:
      // otherwise a statement's rows outlive it and garbage collection costs a page several times as much.
      Client: CallbackQueryClient,
      // pg applies this both to opening a connection and to waiting for a free one in a full pool.
      connectionTimeoutMillis: timeouts.connectTimeoutMs,
      // A server that vanished without closing its connections (a network partition) is noticed.
      keepAlive: true,
      // Server side: PostgreSQL cancels the statement. Client side, a little later: a database that stopped
      // answering altogether (network partition) cannot hold a request either, and the connection is closed.
      // 0 means no limit (migrations: building an index on a large table may take minutes).
      ...(timeouts.statementTimeoutMs > 0 && {
        ...(startupStatementTimeout && { statement_timeout: timeouts.statementTimeoutMs }),
        readTimeoutMillis: timeouts.statementTimeoutMs + 1000,
      }),
      ...(onPoolCreated && { onPoolCreated }),
    },
    // Entities are defined with defineEntity: no reflection, no folder scanning.
    discovery: { warnWhenNoEntities: true },
    // A request works on its own fork; the global EntityManager must never collect state.
    allowGlobalContext: false,
    // Every tenant-owned table carries its own tenant filter, so joining a referenced row (the tenant, the
    // deployment of a secret) only to re-check its filter adds a join to every query and protects nothing.
    autoJoinRefsForFilters: false,
    // A mistyped DATABASE_URL must fail, not silently create (and serve) an empty database.
    ensureDatabase: false,
    // The triggers and functions that announce deployment changes (live updates) are written by hand in their
    // migration, not declared on entities: generated migrations must leave them alone, not drop them.
    schemaGenerator: { ignoreTriggers: true, ignoreRoutines: true },
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
