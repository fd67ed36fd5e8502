// A Redis of the test's own (Debian's redis-server) on a free loopback port, keeping nothing on disk: never the
// machine's Redis on 6379. For test/scale/.
import { existsSync } from 'node:fs';
import { freePort, spawnListening } from './loopback.ts';

export const REDIS_SERVER = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((file) => existsSync(file));

export async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  if (!REDIS_SERVER) throw new Error('redis-server is not installed (Debian: apt-get install redis-server)');
  const port = await freePort();
  const server = await spawnListening(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], port);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: server.stop,
  };
}
