// The real HTTP server of the app on a free port, for tests that talk to it like a client does.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AppOrm } from '../../src/db/orm-config.ts';
import { createApp, type App, type AppOptions } from '../../src/app.ts';
import type { RateLimiter } from '../../src/limits/rate-limiter.ts';
import type { SecretCipher } from '../../src/modules/secrets/secret-cipher.ts';
import type { ApiKeyCache } from '../../src/modules/tenancy/api-key-cache.ts';
import type { DatabaseNotifications } from '../../src/db/database-notifications.ts';
import type { ReadReplicas } from '../../src/db/read-replicas.ts';
import type { DecryptedValuesCache } from '../../src/modules/secrets/decrypted-values-cache.ts';
import { SourceArchives, type SourceArchiveLimits } from '../../src/modules/storage/source-archives.ts';
import { openObjectStore } from '../../src/modules/storage/open-object-store.ts';
import type { ObjectStore } from '../../src/modules/storage/object-store.ts';
import type { ContainerRegistry } from '../../src/modules/registry/container-registry.ts';

export interface RunningApp {
  url: string;
  /** The app itself: its metrics, its in-flight requests (for shutdown). */
  app: App;
  /** Where its source archives are kept (the built-in store in a folder of its own, unless the set-up gave a store). */
  sourceArchives: SourceArchives;
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
  /** The object store of source archives; default: the built-in one, in a temporary folder, at the app's address. */
  objectStore?: ObjectStore;
  /** Shorter lifetimes or a smaller size limit of source uploads than the service's. */
  sourceArchiveLimits?: Partial<SourceArchiveLimits>;
  /** The container registry the app is the token server of; none: push-token answers 501. */
  registry?: ContainerRegistry;
  /** Demo mode's key file, which GraphQL's answer to a missing or wrong key names. */
  demoKeyFile?: string;
}

export async function startApp(orm: AppOrm, cipher: SecretCipher, apiKeys?: ApiKeyCache, setup: AppSetup = {}): Promise<RunningApp> {
  let url = '';
  const dataDir = setup.objectStore ? undefined : mkdtempSync(path.join(os.tmpdir(), 'gateway-objects-'));
  const store = setup.objectStore ?? openObjectStore({ objectStorage: { kind: 'embedded' }, dataDir: dataDir! }, cipher.keyRing.values(), () => url);
  const sourceArchives = new SourceArchives(store, setup.sourceArchiveLimits);
  const app = createApp({
    orm, cipher, apiKeys, rateLimiter: setup.rateLimiter, notifications: setup.notifications, decryptedValues: setup.decryptedValues, replicas: setup.replicas, revisionLeaseSeconds: setup.revisionLeaseSeconds,
    sourceArchives, registry: setup.registry, demoKeyFile: setup.demoKeyFile,
  }, setup.options);
  const { server } = app;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    app,
    sourceArchives,
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
      server.close(() => {
        if (dataDir) rmSync(dataDir, { recursive: true, force: true });
        resolve();
      });
    }),
  };
}
