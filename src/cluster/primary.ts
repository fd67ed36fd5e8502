// The cluster primary (WORKERS > 1). It serves no request itself. Once, before any worker: it opens the
// database (starting the embedded PostgreSQL), applies migrations, checks the secrets key and loads the demo
// data. Then it forks the workers, which share the port (node:cluster hands them connections in turn), keeps
// the rate-limit counts and the write positions (read your writes) they share and gathers their metrics. On
// SIGTERM/SIGINT every worker drains its requests in flight, and only once all have exited is PostgreSQL
// stopped.
import { RateLimiterClusterMaster } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { entities } from '../modules/entities.ts';
import { ensureDemoData, type DemoKey } from '../demo/demo-data.ts';
import { openSecretsKeys } from '../modules/secrets/secrets-key.ts';
import { batchedStdout, createLogger, type Logger } from '../observability/logger.ts';
import { ClusterMetrics } from './cluster-metrics.ts';
import { WorkerPool } from './worker-pool.ts';
import { keepWritePositionsForWorkers } from './cluster-write-positions.ts';

/** Beyond the delay and grace a worker has to drain: closing its pool and connections. */
const WORKER_STOP_MARGIN_MS = 10_000;

/** Migrations, the secrets key check and the demo data: what a single process does before it listens. */
async function prepare(config: Config): Promise<{ database: Database; demo: DemoKey | undefined }> {
  // One connection is plenty to prepare; it is closed when idle, and the workers open their own pools.
  const database = await openDatabase(config, { entities, migrate: config.migrateOnStart, whenRunning: 'own', timeouts: { ...config.database, poolMax: 1 } });
  try {
    const cipher = await openSecretsKeys(config, database.orm.em.getConnection());
    try {
      const demo = database.mode === 'embedded' && config.seedDemoData ? await ensureDemoData(database.orm, cipher, config.dataDir) : undefined;
      return { database, demo };
    } finally {
      await cipher.close();
    }
  } catch (error) {
    await database.close();
    throw error;
  }
}

function finish(logger: Logger, code: number): never {
  logger.flush();
  process.exit(code);
}

export async function runPrimary(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel, batchedStdout());
  // As in a single process: a signal during start-up is acted on once there is something to stop in order; a
  // second one quits at once (and takes the workers with it).
  let pool: WorkerPool | undefined;
  let stopRequested: string | undefined;
  let stop: (signal: string) => void = (signal) => {
    logger.info({ signal }, 'stopping as soon as start-up is complete (again to quit at once)');
    stopRequested = signal;
    stop = () => {
      pool?.kill();
      process.exit(130);
    };
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  const { database, demo } = await prepare(config);
  // Before the first fork: each worker's rate limiters register with it as they are created.
  new RateLimiterClusterMaster();
  // Read your writes among the workers, when replicas are read and Redis does not keep the positions.
  if (config.databaseReplicaUrls.length > 0 && !config.redisUrl) keepWritePositionsForWorkers();
  let metrics: ClusterMetrics | undefined;
  let stopping = false;
  const shutdown = async (reason: string, code: number) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason, workers: pool!.serving().length }, 'shutting down: every worker finishes its requests in flight, then the database stops');
    const clean = await pool!.stop(config.shutdownDelayMs + config.shutdownGraceMs + WORKER_STOP_MARGIN_MS);
    await database.close();
    logger.info('stopped');
    finish(logger, clean ? code : Math.max(code, 1));
  };
  pool = new WorkerPool({
    count: config.workers,
    brief: (slot) => ({ slot, databaseUrl: database.clientUrl, databaseMode: database.mode, demo }),
    logger,
    onRestart: () => metrics?.restarts.inc(),
    onCrashLoop: (line) => {
      logger.error(line);
      void shutdown('crash loop', 1);
    },
  });
  metrics = new ClusterMetrics(pool, logger);
  logger.info({ workers: config.workers }, 'starting workers');
  if (stopRequested) return shutdown(stopRequested, 0);
  stop = (signal) => void shutdown(signal, 0);
  let announcement: string;
  try {
    announcement = await pool.start();
  } catch (error) {
    if (stopping) return;
    stopping = true;
    logger.error(`${(error as Error).message}: stopping`);
    await pool.stop(config.shutdownGraceMs + WORKER_STOP_MARGIN_MS);
    await database.close();
    finish(logger, 1);
  }
  if (!stopping) console.log(announcement);
}
