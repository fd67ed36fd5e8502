// Process entry: configuration -> database (embedded or DATABASE_URL) -> migrations -> demo data -> HTTP,
// and the reverse on SIGINT/SIGTERM: stop accepting, finish requests in flight, close the ORM, stop PostgreSQL.
// With WORKERS > 1 this process becomes the cluster primary (src/cluster/primary.ts), which does the start-up up
// to the demo data once and forks the workers; each worker runs main() from there on, with what it was given.
import './v8-flags.ts';
import cluster from 'node:cluster';
import type { Server } from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { missingServerStatementTimeout } from './db/transaction-pooler.ts';
import { openDatabase, type Database } from './db/database.ts';
import { entities } from './modules/entities.ts';
import { ReadReplicas } from './db/read-replicas.ts';
import { RedisWritePositions } from './db/redis-write-positions.ts';
import type { WritePositions } from './db/write-positions.ts';
import { ClusterWritePositions } from './cluster/cluster-write-positions.ts';
import { keysCheckedByPrimary, openSecretsKeys } from './modules/secrets/secrets-key.ts';
import type { SecretCipher } from './modules/secrets/secret-cipher.ts';
import { DEMO_KEY_FILE, ensureDemoData, type DemoKey } from './demo/demo-data.ts';
import { DEMO_TENANT_ID } from './demo/demo-dataset.ts';
import { describeFailure } from './expected-errors.ts';
import { createApp, GRAPHQL_PATH, type App, type AppOptions } from './app.ts';
import { ApiKeyCache } from './modules/tenancy/api-key-cache.ts';
import { REVOCATION_CHANNEL } from './modules/tenancy/api-key-revocations.ts';
import { ROTATION_CHANNEL } from './modules/secrets/rotation-notice.ts';
import { DecryptedValuesCache } from './modules/secrets/decrypted-values-cache.ts';
import { FEED_CHANNELS } from './modules/deployments/live/deployment-change-feed.ts';
import { DatabaseNotifications } from './db/database-notifications.ts';
import { batchedStdout, createLogger, type Logger } from './observability/logger.ts';
import { startTracing, statementSpans, type Tracing } from './observability/tracing.ts';
import { Metrics } from './observability/metrics.ts';
import { RateLimiter } from './limits/rate-limiter.ts';
import { drainServer } from './http/graceful-shutdown.ts';
import { leaseSweepIntervalMs, startLeaseSweeps } from './modules/revisions/lifecycle/lease-expiry.ts';
import { SourceArchives } from './modules/storage/source-archives.ts';
import { ContainerRegistry } from './modules/registry/container-registry.ts';
import { listeningOrigin, openObjectStore } from './modules/storage/open-object-store.ts';
import { startSourceArchiveSweeps } from './modules/storage/source-archive-sweep.ts';
import { loadTrustedDocuments } from './graphql/trusted-documents.ts';
import { schema } from './graphql/schema.ts';
import { runPrimary } from './cluster/primary.ts';
import { PrimaryLink } from './cluster/primary-link.ts';
import type { WorkerBrief } from './cluster/messages.ts';

function describeDemoKey(demo: DemoKey, url: string): string {
  if ('revokedPrefix' in demo) {
    return `Demo API key ${demo.revokedPrefix} was revoked; issue another with: npm run apikey -- create --tenant ${DEMO_TENANT_ID} --read-secrets --write --reconcile`;
  }
  return [
    `Demo API key (tenant "Demo Workspace", may read secrets, write and reconcile): ${demo.key}`,
    `  open ${url} in a browser (GraphiQL has the key filled in), or`,
    `  try: curl -s ${url} -H 'X-Api-Key: ${demo.key}' -H 'Content-Type: application/json' -d '{"query":"{ tenant { name } }"}'`,
    `  watch revisions deploy: RECONCILE_KEY=${demo.key} GATEWAY_URL=${new URL(url).origin} npm run example:data-plane (a simulator)`,
  ].join('\n');
}

function listen(server: Server, config: Config): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const variable = error.code === 'ENOTFOUND' || error.code === 'EADDRNOTAVAIL' ? 'HOST' : 'PORT';
      reject(new ConfigError(variable, `does not allow listening on ${config.host}:${config.port} (${error.code ?? error.message})`));
    });
    server.listen(config.port, config.host, resolve);
  });
}

/**
 * Where callers' write positions are kept for read your writes: Redis across gateways, else the cluster
 * primary for its workers, else this process's memory (undefined).
 */
function sharedWritePositions(config: Config, inCluster: boolean, logger: Logger): WritePositions | undefined {
  if (config.redisUrl) return new RedisWritePositions(config.redisUrl, { logger });
  return inCluster ? new ClusterWritePositions(logger) : undefined;
}

interface Serving {
  app: App;
  announcement: string;
}

interface Services {
  database: Database;
  cipher: SecretCipher;
  apiKeys: ApiKeyCache;
  decryptedValues: DecryptedValuesCache;
  notifications: DatabaseNotifications;
  rateLimiter: RateLimiter | undefined;
  replicas: ReadReplicas | undefined;
  metrics: Metrics;
  logger: Logger;
  trustedDocuments: AppOptions['trustedDocuments'];
  tracing: Tracing | undefined;
  sourceArchives: SourceArchives;
  /** The origin the object store's URLs name: PUBLIC_URL, or set here once the service listens. */
  origin: { current: string | undefined };
}

/** Listens, and returns the app with what to announce once it can also be stopped cleanly. A worker's demo key comes from the primary. */
async function serve(config: Config, services: Services, worker: WorkerBrief | undefined): Promise<Serving> {
  const { database, cipher, apiKeys, decryptedValues, notifications, rateLimiter, replicas, metrics, logger, trustedDocuments, tracing, sourceArchives, origin } = services;
  const demo = worker ? worker.demo
    : database.mode === 'embedded' && config.seedDemoData ? await ensureDemoData(database.orm, cipher, config.dataDir) : undefined;
  const app = createApp({
    orm: database.orm, cipher, apiKeys, decryptedValues, rateLimiter, notifications, replicas, revisionLeaseSeconds: config.revisionLeaseSeconds, sourceArchives,
    registry: config.registry && new ContainerRegistry(config.registry),
    demoKeyFile: demo && 'key' in demo ? path.join(config.dataDir, DEMO_KEY_FILE) : undefined,
  }, {
    demoApiKey: demo && 'key' in demo ? demo.key : undefined,
    introspection: config.graphqlIntrospection,
    graphiql: config.graphiql,
    trustedDocuments,
    corsOrigins: config.corsOrigins,
    maxBodyBytes: config.maxBodyBytes,
    compression: config.compressionMinBytes !== false && { minBytes: config.compressionMinBytes },
    subscriptionsPerKey: config.subscriptionsPerKey,
    operationsAtOnce: { limit: config.database.poolMax, waitMs: config.database.connectTimeoutMs },
    logger,
    metrics,
    tracing,
  });
  await listen(app.server, config);
  const { port } = app.server.address() as AddressInfo;
  origin.current ??= listeningOrigin(config.host, port);
  // Said once: by the single process, or by the first worker.
  if (!config.publicUrl && sourceArchives.store.kind === 'embedded' && !['127.0.0.1', '::1', 'localhost'].includes(config.host) && (worker?.slot ?? 1) === 1) {
    logger.warn(`PUBLIC_URL is not set: upload and download URLs name ${origin.current}; set it to the address clients reach this service at`);
  }
  const shownHost = ['127.0.0.1', '::1', '0.0.0.0', '::'].includes(config.host) ? 'localhost' : config.host;
  const url = `http://${shownHost}:${port}${GRAPHQL_PATH}`;
  const where = (worker?.databaseMode ?? database.mode) === 'embedded' ? `embedded PostgreSQL in ${config.dataDir}` : 'DATABASE_URL';
  const workers = config.workers > 1 ? `, ${config.workers} workers` : '';
  const lines = [`GraphQL ready at ${url} (database: ${where}${workers})`, ...(demo ? [describeDemoKey(demo, url)] : [])];
  return { app, announcement: lines.join('\n') };
}

async function main(): Promise<void> {
  const config = loadConfig();
  // Before anything starts: a manifest that is missing, malformed or stale against the schema stops the service.
  const { trustedDocuments: trusted } = config;
  const trustedDocuments = trusted.mode === 'off' ? undefined : { mode: trusted.mode, manifest: loadTrustedDocuments(trusted.manifestPath, schema) };
  if (config.workers > 1 && cluster.isPrimary) return runPrimary(config);
  // A cluster worker: the database the primary opened (and migrated, and checked the secrets key against).
  const primary = await PrimaryLink.join();
  const serviceLogger = createLogger(config.logLevel, batchedStdout());
  const logger = primary ? serviceLogger.child({ worker: primary.brief.slot }) : serviceLogger;
  // A signal during start-up (the embedded PostgreSQL runs detached, so it must not be left behind): noted,
  // and acted on as soon as there is something to stop in order. A second one quits at once (the next start
  // stops a PostgreSQL left behind).
  let stop: (signal: string) => void = (signal) => {
    logger.info({ signal }, 'stopping as soon as start-up is complete (again to quit at once)');
    stop = () => process.exit(130);
    stopRequested = signal;
  };
  let stopRequested: string | undefined;
  if (primary) primary.onStop((signal) => stop(signal));
  else {
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  }
  const metrics = new Metrics();
  primary?.shareMetrics(metrics);
  // Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set: then the SDK is loaded, and the ORM reports its statements.
  const tracing = config.tracing ? await startTracing({ serviceName: config.tracing.serviceName, workerId: primary?.brief.slot }) : undefined;
  const database = await openDatabase(primary ? { ...config, databaseUrl: primary.brief.databaseUrl } : config, {
    entities,
    migrate: !primary && config.migrateOnStart,
    whenRunning: 'own',
    timeouts: config.database,
    onPoolCreated: (pool) => metrics.observePool(pool),
    onStatement: tracing && statementSpans(tracing),
  });
  if (database.pooler === 'transaction') {
    const warning = await missingServerStatementTimeout(database.orm, config.database.statementTimeoutMs);
    if (warning) logger.warn(warning);
  }
  // Only once the database is open: whether a key may be generated, and whether the keys read the stored
  // secrets, depend on what it holds. A process that cannot read them does not start.
  const cipher = await (primary ? keysCheckedByPrimary(config) : openSecretsKeys(config, database.orm.em.getConnection())).catch(async (error: unknown) => {
    await database.close();
    throw error;
  });
  // One LISTEN connection for the process: key revocations (verified keys are cached while they can reach the
  // cache) and deployment changes (live updates).
  const notifications = new DatabaseNotifications([REVOCATION_CHANNEL, ROTATION_CHANNEL, ...FEED_CHANNELS]);
  const apiKeys = new ApiKeyCache();
  apiKeys.listenTo(notifications);
  // Cleared by every revocation and rotation this connection hears; answers nothing while it is down.
  const decryptedValues = new DecryptedValuesCache(config.secretValuesCache);
  decryptedValues.listenTo(notifications);
  await notifications.start(database.directUrl);
  const rateLimiter = config.rateLimitPerMinute > 0
    ? new RateLimiter({ perMinute: config.rateLimitPerMinute, redisUrl: config.redisUrl, logger, acrossWorkers: Boolean(primary) })
    : undefined;
  if (rateLimiter && !(await rateLimiter.connected(2000))) logger.warn('REDIS_URL does not answer yet; rate limits are kept in memory until it does');
  const replicas = config.databaseReplicaUrls.length > 0
    ? await ReadReplicas.open(database.orm, config.databaseReplicaUrls, {
      maxLagSeconds: config.replicaMaxLagSeconds, timeouts: config.database, onStatement: tracing && statementSpans(tracing),
      writePositions: sharedWritePositions(config, Boolean(primary), logger),
    })
    : undefined;
  if (replicas) logger.info(`read replicas: ${replicas.describe()}`);
  // Source archives: S3_BUCKET's store, or files in DATA_DIR/objects behind URLs of this service's.
  const origin = { current: config.publicUrl };
  const sourceArchives = new SourceArchives(openObjectStore(config, cipher.keyRing.values(), () => origin.current!));
  let serving: Serving;
  try {
    serving = await serve(config, {
      database, cipher, apiKeys, decryptedValues, notifications, rateLimiter, replicas, metrics, logger, trustedDocuments, tracing, sourceArchives, origin,
    }, primary?.brief);
  } catch (error) {
    await sourceArchives.store.close();
    await replicas?.close();
    await rateLimiter?.close();
    apiKeys.stop();
    decryptedValues.stop();
    await notifications.stop();
    await database.close();
    throw error;
  }

  // A revision whose data plane stopped reporting is recovered within a quarter of the lease (every process
  // sweeps; sweeps skip each other's rows).
  const stopLeaseSweeps = startLeaseSweeps(database.orm.em, leaseSweepIntervalMs(config.revisionLeaseSeconds), logger);
  // Archives of deleted deployments, and uploads never used, are removed (every process sweeps; sweeps skip each other's rows).
  const stopArchiveSweeps = startSourceArchiveSweeps(database.orm.em, sourceArchives, logger);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, inFlight: serving.app.inFlight.size }, 'shutting down: finishing requests in flight, then stopping');
    const { app } = serving;
    let failure: unknown;
    try {
      await drainServer(app.server, app.inFlight, { delayMs: config.shutdownDelayMs, graceMs: config.shutdownGraceMs }, logger, app.deploymentChanges);
      app.deploymentChanges.stop();
      stopLeaseSweeps();
      stopArchiveSweeps();
      await sourceArchives.store.close();
      await cipher.close();
      await rateLimiter?.close();
      apiKeys.stop();
      decryptedValues.stop();
      await notifications.stop();
      await replicas?.close();
      await database.close();
    } catch (error) {
      // Said, and in the exit code: a supervisor or an operator must not take it for a clean stop.
      failure = error;
    }
    // Last: the spans of the requests that were drained above are flushed.
    await tracing?.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'tracing: spans could not be flushed'));
    if (failure === undefined) logger.info('stopped');
    else logger.error({ err: failure }, 'stopped, but not cleanly');
    logger.flush();
    process.exit(failure === undefined ? 0 : 1);
  };
  stop = (signal) => void shutdown(signal);
  if (stopRequested) return stop(stopRequested);
  if (primary) primary.serving(serving.announcement);
  else console.log(serving.announcement);
}

main().catch((error: unknown) => {
  console.error(describeFailure(error));
  process.exit(1);
});
