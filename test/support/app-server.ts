// The real HTTP server of the app on a free port, for tests that talk to it like a client does.
import type { AddressInfo } from 'node:net';
import type { AppOrm } from '../../src/db/orm-config.ts';
import { createApp, type App, type AppOptions } from '../../src/app.ts';
import type { RateLimiter } from '../../src/limits/rate-limiter.ts';
import type { SecretCipher } from '../../src/modules/secrets/secret-cipher.ts';
import type { ApiKeyCache } from '../../src/modules/tenancy/api-key-cache.ts';
import type { DatabaseNotifications } from '../../src/db/database-notifications.ts';
import type { ReadReplicas } from '../../src/db/read-replicas.ts';
import type { DecryptedValuesCache } from '../../src/modules/secrets/decrypted-values-cache.ts';

export interface RunningApp {
  url: string;
  /** The app itself: its metrics, its in-flight requests (for shutdown). */
  app: App;
  graphql(query: string, headers?: Record<string, string>, variables?: Record<string, unknown>): Promise<{ status: number; headers: Headers; body: any }>;
  close(): Promise<void>;
}

export interface AppSetup {
  rateLimiter?: RateLimiter;
  /** The LISTEN connection (live updates); none: subscriptions are refused. */
  notifications?: DatabaseNotifications;
  /** Read replicas (and the write positions they keep); none: every read on `orm`. */
  replicas?: ReadReplicas;
  /** Limits, CORS, logger, production switches: what the service passes from its configuration. */
  options?: AppOptions;
  /** How long a data plane's claim or report keeps its lease (default: the service's). */
  revisionLeaseSeconds?: number;
  /** Secret values kept decrypted (the service keeps them; none: every value deciphered each time). */
  decryptedValues?: DecryptedValuesCache;
}

export async function startApp(orm: AppOrm, cipher: SecretCipher, apiKeys?: ApiKeyCache, setup: AppSetup = {}): Promise<RunningApp> {
  const app = createApp({
    orm, cipher, apiKeys, rateLimiter: setup.rateLimiter, notifications: setup.notifications, decryptedValues: setup.decryptedValues, replicas: setup.replicas, revisionLeaseSeconds: setup.revisionLeaseSeconds,
  }, setup.options);
  const { server } = app;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    app,
    async graphql(query, headers = {}, variables) {
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...headers },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, headers: response.headers, body: await response.json() };
    },
    close: () => new Promise((resolve) => {
      app.deploymentChanges.stop();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
