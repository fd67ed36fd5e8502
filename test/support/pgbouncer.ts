// A real PgBouncer (Debian's package) in transaction mode in front of one test database, on a free loopback
// port, with a pool smaller than its clients' so that they really share server connections. For test/scale/.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((file) => existsSync(file));

export interface RunningPgBouncer {
  /** The pooled URL of the database (what DATABASE_URL is set to behind PgBouncer). */
  url: string;
  output: () => string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function accepting(port: number, deadlineMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`PgBouncer does not accept connections on ${port}:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts PgBouncer in transaction mode for `databaseUrl` (a direct postgres:// URL with user and password). */
export async function startPgBouncer(databaseUrl: string, options: { serverConnections?: number } = {}): Promise<RunningPgBouncer> {
  if (!PGBOUNCER) throw new Error('pgbouncer is not installed (Debian: apt-get install pgbouncer)');
  const target = new URL(databaseUrl);
  const database = decodeURIComponent(target.pathname.slice(1));
  const user = decodeURIComponent(target.username);
  const password = decodeURIComponent(target.password);
  const port = await freePort();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dmg-pgbouncer-'));
  // PgBouncer refuses to run as root; as root it is told to become nobody, who must read its files.
  await fs.chmod(dir, 0o755);
  const size = options.serverConnections ?? 2;
  const quote = (value: string) => `'${value.replace(/'/g, "''")}'`;
  await fs.writeFile(path.join(dir, 'pgbouncer.ini'), [
    '[databases]',
    `${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database} user=${user} password=${quote(password)}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${path.join(dir, 'users.txt')}`,
    'pool_mode = transaction',
    `default_pool_size = ${size}`,
    `max_db_connections = ${size}`,
    'max_client_conn = 500',
    '',
  ].join('\n'), { mode: 0o644 });
  await fs.writeFile(path.join(dir, 'users.txt'), `"${user}" ""\n`, { mode: 0o644 });
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'nobody'] : []), path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await accepting(port, 10_000, () => output);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const url = Object.assign(new URL(databaseUrl), { port: String(port), password: '' });
  return {
    url: url.toString(),
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
