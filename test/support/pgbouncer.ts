// A real PgBouncer (Debian's package) in transaction mode in front of one test database, on a free loopback
// port, with a pool smaller than its clients' so that they really share server connections. For test/scale/.
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, spawnListening } from './loopback.ts';

export const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((file) => existsSync(file));

export interface RunningPgBouncer {
  /** The pooled URL of the database (what DATABASE_URL is set to behind PgBouncer). */
  url: string;
  output: () => string;
  stop(): Promise<void>;
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
    `${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database} user=${user}${password ? ` password=${quote(password)}` : ''}`,
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
  const server = await spawnListening(PGBOUNCER, [...(asRoot ? ['-u', 'nobody'] : []), path.join(dir, 'pgbouncer.ini')], port);
  const url = Object.assign(new URL(databaseUrl), { port: String(port), password: '' });
  return {
    url: url.toString(),
    output: server.output,
    async stop() {
      await server.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
