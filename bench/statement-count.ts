// SQL statements, round trips to PostgreSQL, bytes read from it and bytes sent per request of each scenario,
// counted in-process through the same app (createApp) with an ORM whose onQuery hook counts statements and whose
// pool's connections count the messages they send (one round trip each: several statements may share one, see
// src/db/statements-sent-with-next.ts) and say what they read: the same resolvers, loaders and queries the
// service runs under load.
import { MikroORM } from '@mikro-orm/postgresql';
import type { AddressInfo, Socket } from 'node:net';
import { createApp } from '../src/app.ts';
import type { Config } from '../src/config.ts';
import { createOrmConfig, type AppOrm } from '../src/db/orm-config.ts';
import { entities } from '../src/modules/entities.ts';
import { openSecretsKeys } from '../src/modules/secrets/secrets-key.ts';
import { ApiKeyCache } from '../src/modules/tenancy/api-key-cache.ts';
import { REVOCATION_CHANNEL } from '../src/modules/tenancy/api-key-revocations.ts';
import { DatabaseNotifications } from '../src/db/database-notifications.ts';
import { keyFor, type BenchKeys } from './harness.ts';
import type { Scenario } from './scenarios.ts';
import { rawRequest } from '../test/support/raw-http.ts';

export interface RequestCost {
  statements: number;
  /** Messages of statements sent, BEGIN and COMMIT included; unknown for a ceiling. */
  roundTrips?: number;
  bytesFromPostgres: number;
  /** The response body as sent (compressed when the scenario asks for it). */
  responseBytes: number;
}

export async function countStatements(clientUrl: string, config: Config, keys: BenchKeys, list: Scenario[]): Promise<Map<string, RequestCost>> {
  let count = 0;
  let roundTrips = 0;
  const sockets = new Set<Socket>();
  const bytesRead = () => [...sockets].reduce((sum, socket) => sum + socket.bytesRead, 0);
  const orm = (await MikroORM.init(createOrmConfig({
    entities, clientUrl,
    onQuery: () => { count++; },
    onPoolCreated: (pool) => pool.on('connect', (client) => {
      const connection = (client as unknown as { connection: { stream: Socket } & Record<'query' | 'parse', (...args: unknown[]) => unknown> }).connection;
      sockets.add(connection.stream);
      // A simple-protocol query, or an extended one's parse (its sync follows): one message of statements each.
      for (const method of ['query', 'parse'] as const) {
        const send = connection[method].bind(connection);
        connection[method] = (...args: unknown[]) => (roundTrips++, send(...args));
      }
    }),
  }))) as unknown as AppOrm;
  // As the service runs: with its cache of verified keys (the warm-up request fills it).
  const notifications = new DatabaseNotifications([REVOCATION_CHANNEL]);
  const apiKeys = new ApiKeyCache();
  apiKeys.listenTo(notifications);
  await notifications.start(clientUrl);
  const { server } = createApp({ orm, cipher: await openSecretsKeys(config, orm.em.getConnection()), apiKeys });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const counts = new Map<string, RequestCost>();
  try {
    for (const scenario of list) {
      const key = keyFor(scenario, keys);
      // A planned scenario's sample: as its load sends it (a 304 to the page's tag, a read after a write).
      const sample = (await scenario.plan?.(base, key))?.sample;
      // node:http, not fetch: the body as sent, compressed when the scenario asks for it.
      const send = () => {
        if (sample) return rawRequest(`${base}${sample.path}`, { method: sample.method, headers: sample.headers });
        const { path, body } = scenario.request?.() ?? scenario;
        return rawRequest(`${base}${path}`, {
          method: scenario.method, body, headers: { 'x-api-key': key, 'content-type': 'application/json', ...scenario.headers },
        });
      };
      await send(); // the first request may carry one-time work
      count = 0;
      roundTrips = 0;
      const bytesBefore = bytesRead();
      const response = await send();
      if (sample ? response.status !== sample.status : response.status < 200 || response.status > 299) throw new Error(`${scenario.name}: HTTP ${response.status}`);
      counts.set(scenario.name, { statements: count, roundTrips, bytesFromPostgres: bytesRead() - bytesBefore, responseBytes: response.body.length });
    }
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    apiKeys.stop();
    await notifications.stop();
    await orm.close();
  }
  return counts;
}
