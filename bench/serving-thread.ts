// npm run bench:serving-thread [-- --path /v2/deployments?limit=100 --requests 30 --rounds 6 --cases masked,revealed,deciphered]
// How much of the service's serving thread one request takes, for a key without the secrets scope (masked)
// and one with it: `revealed` as the service serves a page seen within the minute (its values kept decrypted,
// decrypted-values-cache.ts), `deciphered` with nothing kept (every value deciphered, on the decryption thread).
// The app in this process, the request through yoga.fetch one after another, the thread's CPU from
// process.threadCpuUsage(), rounds alternated, medians. No sockets and no load generator, so it moves far less
// with what else the machine runs than requests per second do (docs/performance.md#secret-revealing-pages).
// `--cases masked` (or one other) with `node --cpu-prof bench/serving-thread.ts` profiles one case alone.
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { entities } from '../src/modules/entities.ts';
import { openSecretsKeys } from '../src/modules/secrets/secrets-key.ts';
import { ApiKeyCache } from '../src/modules/tenancy/api-key-cache.ts';
import { REVOCATION_CHANNEL } from '../src/modules/tenancy/api-key-revocations.ts';
import { DatabaseNotifications } from '../src/db/database-notifications.ts';
import { DecryptedValuesCache } from '../src/modules/secrets/decrypted-values-cache.ts';
import { ROTATION_CHANNEL } from '../src/modules/secrets/rotation-notice.ts';
import { createApp } from '../src/app.ts';
import { benchEnvironment } from './bench-environment.ts';
import { issueBenchKeys } from './harness.ts';

const { values: options } = parseArgs({
  options: {
    path: { type: 'string', default: '/v2/deployments?limit=100' },
    requests: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '6' },
    cases: { type: 'string', default: 'masked,revealed,deciphered' },
  },
});
const requests = Number(options.requests);

Object.assign(process.env, benchEnvironment());
const config = loadConfig();
const database = await openDatabase(config, { entities, migrate: true, whenRunning: 'join' });
const cipher = await openSecretsKeys(config, database.orm.em.getConnection());
const notifications = new DatabaseNotifications([REVOCATION_CHANNEL, ROTATION_CHANNEL]);
const apiKeys = new ApiKeyCache();
apiKeys.listenTo(notifications);
// As main.ts keeps them.
const decryptedValues = new DecryptedValuesCache(config.secretValuesCache);
decryptedValues.listenTo(notifications);
await notifications.start(database.clientUrl);
try {
  const keys = await issueBenchKeys(database, 'serving-thread');
  const kept = createApp({ orm: database.orm, cipher, apiKeys, decryptedValues }, { introspection: false, graphiql: false });
  const nothingKept = createApp({ orm: database.orm, cipher, apiKeys }, { introspection: false, graphiql: false });
  const all = { masked: [kept, keys.masked], revealed: [kept, keys.secrets], deciphered: [nothingKept, keys.secrets] } as const;
  type Case = keyof typeof all;
  const cases = options.cases.split(',').map((name) => {
    if (!(name in all)) throw new Error(`--cases: ${name} is not one of ${Object.keys(all).join(', ')}`);
    return name as Case;
  });
  const once = async ([app, key]: (typeof all)[Case]) => {
    const response = await app.yoga.fetch(`http://localhost${options.path}`, { headers: { 'x-api-key': key } });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`${options.path}: ${response.status} ${body.slice(0, 200)}`);
  };
  for (const name of cases) for (let i = 0; i < 20; i++) await once(all[name]);
  const samples = new Map(cases.map((name) => [name, [] as number[]]));
  for (let round = 0; round < Number(options.rounds); round++) {
    for (const name of cases) {
      const before = process.threadCpuUsage();
      for (let i = 0; i < requests; i++) await once(all[name]);
      const used = process.threadCpuUsage(before);
      samples.get(name)!.push((used.user + used.system) / requests / 1000);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`${options.path}, ${requests} requests × ${options.rounds} rounds; serving thread's CPU per request, ms`);
  for (const [name, xs] of samples) console.log(`${name.padEnd(10)} median ${median(xs).toFixed(2)}  rounds ${xs.map((x) => x.toFixed(1)).join(' ')}`);
  const masked = samples.get('masked');
  for (const [name, xs] of samples) {
    if (masked && name !== 'masked') console.log(`${name} keeps ${((median(masked) / median(xs)) * 100).toFixed(0)}% of the masked page's rate, as far as the serving thread decides it`);
  }
  await cipher.close();
} finally {
  decryptedValues.stop();
  apiKeys.stop();
  await notifications.stop();
  await database.close();
}
