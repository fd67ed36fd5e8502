// The real HTTP server of the app on a free port, for tests that talk to it like a client does.
import type { AddressInfo } from 'node:net';
import type { AppOrm } from '../../src/db/orm-config.ts';
import { createApp } from '../../src/app.ts';
import type { SecretCipher } from '../../src/modules/deployments/secret-cipher.ts';
import type { ApiKeyCache } from '../../src/modules/tenancy/api-key-cache.ts';

export interface RunningApp {
  url: string;
  graphql(query: string, headers?: Record<string, string>, variables?: Record<string, unknown>): Promise<{ status: number; headers: Headers; body: any }>;
  close(): Promise<void>;
}

export async function startApp(orm: AppOrm, cipher: SecretCipher, apiKeys?: ApiKeyCache): Promise<RunningApp> {
  const { server } = createApp({ orm, cipher, apiKeys });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async graphql(query, headers = {}, variables) {
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...headers },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, headers: response.headers, body: await response.json() };
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
