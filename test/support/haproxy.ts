// A real HAProxy (Debian's package) in front of gateways on loopback, with the health checks, retries and
// redispatch that docs/deploying.md recommends: the same backend settings, tested. For test/scale/.
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, spawnListening } from './loopback.ts';

export const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((file) => existsSync(file));

export interface RunningHaproxy {
  url: string;
  output: () => string;
  stop(): Promise<void>;
}

/** `backends`: the gateways' base URLs (http://127.0.0.1:port). */
export async function startHaproxy(backends: string[]): Promise<RunningHaproxy> {
  if (!HAPROXY) throw new Error('haproxy is not installed (Debian: apt-get install haproxy)');
  const port = await freePort();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dmg-haproxy-'));
  const file = path.join(dir, 'haproxy.cfg');
  await fs.writeFile(file, [
    'global',
    '  maxconn 2000',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  retries 3',
    'frontend gateway',
    `  bind 127.0.0.1:${port}`,
    '  default_backend gateways',
    // As docs/deploying.md: route on /ready, retry only what never reached a gateway or got nothing back.
    'backend gateways',
    '  option httpchk GET /ready',
    '  http-check expect status 200',
    '  default-server inter 300ms fall 1 rise 2',
    '  retry-on conn-failure empty-response',
    '  option redispatch',
    ...backends.map((backend, i) => `  server gw${i + 1} ${new URL(backend).host} check`),
    '',
  ].join('\n'));
  const server = await spawnListening(HAPROXY, ['-db', '-f', file], port);
  return {
    url: `http://127.0.0.1:${port}`,
    output: server.output,
    async stop() {
      await server.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
