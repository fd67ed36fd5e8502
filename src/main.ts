// Process entry: configuration -> database (embedded or DATABASE_URL) -> migrations -> demo data -> HTTP,
// and the reverse on SIGINT/SIGTERM: stop accepting, finish requests in flight, close the ORM, stop PostgreSQL.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import { resolveSecretsKey } from './modules/deployments/secrets-key.ts';
import { SecretCipher } from './modules/deployments/secret-cipher.ts';
import { ensureDemoData, type DemoKey } from './demo/demo-data.ts';
import { DEMO_TENANT_ID } from './demo/demo-dataset.ts';
import { describeFailure } from './expected-errors.ts';
import { createApp, GRAPHQL_PATH } from './app.ts';
import { ApiKeyCache } from './modules/tenancy/api-key-cache.ts';

function describeDemoKey(demo: DemoKey, url: string): string {
  if ('revokedPrefix' in demo) {
    return `Demo API key ${demo.revokedPrefix} was revoked; issue another with: npm run apikey -- create --tenant ${DEMO_TENANT_ID} --read-secrets`;
  }
  return [
    `Demo API key (tenant "Demo Workspace", may read secrets): ${demo.key}`,
    `  open ${url} in a browser (GraphiQL has the key filled in), or`,
    `  try: curl -s ${url} -H 'X-Api-Key: ${demo.key}' -H 'Content-Type: application/json' -d '{"query":"{ tenant { name } }"}'`,
  ].join('\n');
}

function listen(server: Server, config: Config): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const variable = error.code === 'ENOTFOUND' || error.code === 'EADDRNOTAVAIL' ? 'HOST' : 'PORT';
      reject(new ConfigError(variable, `does not allow listening on ${config.host}:${config.port} (${error.code ?? error.message})`));
    });
    server.listen(config.port, config.host, resolve);
  });
}

/** Listens, and returns the server with what to announce once it can also be stopped cleanly. */
async function serve(config: Config, database: Database, cipher: SecretCipher, apiKeys: ApiKeyCache): Promise<{ server: Server; announcement: string }> {
  const demo = database.mode === 'embedded' && config.seedDemoData ? await ensureDemoData(database.orm, cipher, config.dataDir) : undefined;
  const { server } = createApp({ orm: database.orm, cipher, apiKeys }, { demoApiKey: demo && 'key' in demo ? demo.key : undefined });
  await listen(server, config);
  const { port } = server.address() as AddressInfo;
  const shownHost = ['127.0.0.1', '::1', '0.0.0.0', '::'].includes(config.host) ? 'localhost' : config.host;
  const url = `http://${shownHost}:${port}${GRAPHQL_PATH}`;
  const where = database.mode === 'embedded' ? `embedded PostgreSQL in ${config.dataDir}` : 'DATABASE_URL';
  const lines = [`GraphQL ready at ${url} (database: ${where})`, ...(demo ? [describeDemoKey(demo, url)] : [])];
  return { server, announcement: lines.join('\n') };
}

async function main(): Promise<void> {
  const config = loadConfig();
  const cipher = new SecretCipher(await resolveSecretsKey(config));
  const database = await openDatabase(config, { migrate: config.migrateOnStart, whenRunning: 'own' });
  // Verified keys are cached while revocations can reach the cache (LISTEN on the database).
  const apiKeys = new ApiKeyCache();
  await apiKeys.listen(database.clientUrl);
  let server: Server;
  let announcement: string;
  try {
    ({ server, announcement } = await serve(config, database, cipher, apiKeys));
  } catch (error) {
    await apiKeys.stop();
    await database.close();
    throw error;
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received: finishing requests in flight, then stopping`);
    server.closeIdleConnections();
    await new Promise((resolve) => server.close(resolve));
    await apiKeys.stop();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  console.log(announcement);
}

main().catch((error: unknown) => {
  console.error(describeFailure(error));
  process.exit(1);
});
