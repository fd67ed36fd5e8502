// A PostgreSQL primary and a streaming replica of it (Debian's PostgreSQL binaries and pg_basebackup), each in
// a temporary directory on a free loopback port, run as the `postgres` user when the tests run as root. For
// test/scale/: the read-replica tests pause, resume and stop the replica.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './loopback.ts';

const run = promisify(execFile);

const BIN = (() => {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const newest = readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))[0];
  return newest ? path.join(root, newest, 'bin') : undefined;
})();

const asRoot = process.getuid?.() === 0;
/** Runs a PostgreSQL binary, as `postgres` when the tests run as root (PostgreSQL refuses to run as root). */
const pgTool = (tool: string, args: string[]) =>
  asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(BIN!, tool), ...args]) : run(path.join(BIN!, tool), args);

export interface StreamingPair {
  primaryUrl(database: string): string;
  replicaUrl(database: string): string;
  /** SQL on the replica (e.g. `select pg_wal_replay_pause()`). */
  onReplica(sql: string): Promise<unknown[]>;
  stopReplica(): Promise<void>;
  stop(): Promise<void>;
}

async function configure(dir: string, port: number): Promise<void> {
  await fs.appendFile(path.join(dir, 'postgresql.conf'), [
    '', `port = ${port}`, "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${dir}'`,
    'wal_level = replica', 'max_wal_senders = 4', 'hot_standby = on', 'fsync = off', '',
  ].join('\n'));
}

export async function startStreamingPair(): Promise<StreamingPair> {
  if (!BIN) throw new Error('PostgreSQL server binaries are not installed (Debian: apt-get install postgresql)');
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'dmg-replication-'));
  await fs.chmod(root, 0o777);
  const primaryDir = path.join(root, 'primary');
  const replicaDir = path.join(root, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  await pgTool('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync']);
  await configure(primaryDir, primaryPort);
  await pgTool('pg_ctl', ['-D', primaryDir, '-l', path.join(root, 'primary.log'), '-w', 'start']);
  let replicaRunning = false;
  const stopDir = (dir: string) => pgTool('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']).catch(() => {});
  try {
    await pgTool('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream']);
    await fs.appendFile(path.join(replicaDir, 'postgresql.auto.conf'), `\nport = ${replicaPort}\nunix_socket_directories = '${replicaDir}'\n`);
    await pgTool('pg_ctl', ['-D', replicaDir, '-l', path.join(root, 'replica.log'), '-w', 'start']);
    replicaRunning = true;
  } catch (error) {
    await stopDir(primaryDir);
    throw error;
  }
  const url = (port: number, database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    primaryUrl: (database) => url(primaryPort, database),
    replicaUrl: (database) => url(replicaPort, database),
    async onReplica(sql) {
      const client = new pg.Client({ connectionString: url(replicaPort, 'postgres') });
      await client.connect();
      try {
        return (await client.query(sql)).rows;
      } finally {
        await client.end();
      }
    },
    async stopReplica() {
      await stopDir(replicaDir);
      replicaRunning = false;
    },
    async stop() {
      if (replicaRunning) await stopDir(replicaDir);
      await stopDir(primaryDir);
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}
