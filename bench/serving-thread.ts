// npm run bench:serving-thread [-- --path /v2/deployments?limit=100 --requests 30 --rounds 6]
// How much of the service's serving thread one request takes, for a key without the secrets scope (masked)
// and one with it (revealed): the app in this process, the request through yoga.fetch one after another, the
// thread's CPU from process.threadCpuUsage(), rounds alternated, medians. No sockets and no load generator,
// so it moves far less with what else the machine runs than requests per second do (docs/performance.md#secret-revealing-pages).
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { entities } from '../src/modules/entities.ts';
import { openSecretsKeys } from '../src/modules/secrets/secrets-key.ts';
import { ApiKeyCache } from '../src/modules/tenancy/api-key-cache.ts';
import { REVOCATION_CHANNEL } from '../src/modules/tenancy/api-key-revocations.ts';
import { DatabaseNotifications } from '../src/db/database-notifications.ts';
import { createApp } from '../src/app.ts';
import { benchEnvironment } from './bench-environment.ts';
import { issueBenchKeys } from './harness.ts';

const { values: options } = parseArgs({
  options: {
    path: { type: 'string', default: '/v2/deployments?limit=100' },
    requests: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '6' },
  },
});
const requests = Number(options.requests);

Object.assign(process.env, benchEnvironment());
const config = loadConfig();
const database = await openDatabase(config, { entities, migrate: true, whenRunning: 'join' });
const cipher = await openSecretsKeys(config, database.orm.em.getConnection());
const notifications = new DatabaseNotifications([REVOCATION_CHANNEL]);
const apiKeys = new ApiKeyCache();
apiKeys.listenTo(notifications);
await notifications.start(database.clientUrl);
try {
  const keys = await issueBenchKeys(database, 'serving-thread');
  const app = createApp({ orm: database.orm, cipher, apiKeys }, { introspection: false, graphiql: false });
  const once = async (key: string) => {
    const response = await app.yoga.fetch(`http://localhost${options.path}`, { headers: { 'x-api-key': key } });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`${options.path}: ${response.status} ${body.slice(0, 200)}`);
  };
  const cases = { masked: keys.masked, revealed: keys.secrets };
  for (const key of Object.values(cases)) for (let i = 0; i < 20; i++) await once(key);
  const samples: Record<keyof typeof cases, number[]> = { masked: [], revealed: [] };
  for (let round = 0; round < Number(options.rounds); round++) {
    for (const [name, key] of Object.entries(cases) as [keyof typeof cases, string][]) {
      const before = process.threadCpuUsage();
      for (let i = 0; i < requests; i++) await once(key);
      const used = process.threadCpuUsage(before);
      samples[name].push((used.user + used.system) / requests / 1000);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`${options.path}, ${requests} requests × ${options.rounds} rounds; serving thread's CPU per request, ms`);
  for (const [name, xs] of Object.entries(samples)) console.log(`${name.padEnd(9)} median ${median(xs).toFixed(2)}  rounds ${xs.map((x) => x.toFixed(1)).join(' ')}`);
  console.log(`revealed keeps ${((median(samples.masked) / median(samples.revealed)) * 100).toFixed(0)}% of the masked page's rate, as far as the serving thread decides it`);
  await cipher.close();
} finally {
  apiKeys.stop();
  await notifications.stop();
  await database.close();
}
