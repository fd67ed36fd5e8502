// Process entry: configuration -> database (embedded or DATABASE_URL) -> migrations -> demo data -> HTTP.
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig } from './config.ts';
import { DatabaseUnavailableError, openDatabase } from './db/database.ts';
import { EmbeddedPostgresError } from './db/embedded-postgres.ts';
import { resolveSecretsKey } from './modules/deployments/secrets-key.ts';
import { SecretCipher } from './modules/deployments/secret-cipher.ts';
import { ensureDemoData, type DemoKey } from './cli/demo-data.ts';
import { DEMO_TENANT_ID } from './cli/demo-dataset.ts';
import { createApp, GRAPHQL_PATH } from './app.ts';

function describeDemoKey(demo: DemoKey, url: string): string {
  if ('revokedPrefix' in demo) {
    return `Demo API key ${demo.revokedPrefix}… was revoked; issue another with: npm run apikey -- create --tenant ${DEMO_TENANT_ID} --read-secrets`;
  }
  return [
    `Demo API key (tenant "Demo Workspace", may read secrets): ${demo.key}`,
    `  try: curl -s ${url} -H 'X-Api-Key: ${demo.key}' -H 'Content-Type: application/json' -d '{"query":"{ tenant { name } }"}'`,
  ].join('\n');
}

async function main(): Promise<void> {
  const config = loadConfig();
  const cipher = new SecretCipher(await resolveSecretsKey(config));
  const database = await openDatabase(config, { migrate: config.migrateOnStart });
  const demo = database.mode === 'embedded' && config.seedDemoData ? await ensureDemoData(database.orm, cipher, config.dataDir) : undefined;

  const { server } = createApp({ orm: database.orm, cipher });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const busy = error.code === 'EADDRINUSE' || error.code === 'EACCES';
      reject(busy ? new ConfigError('PORT', `${config.port} on ${config.host} cannot be used (${error.code}); choose another PORT or HOST`) : error);
    });
    server.listen(config.port, config.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = ['127.0.0.1', '::1', '0.0.0.0', '::'].includes(config.host) ? 'localhost' : config.host;
  const url = `http://${shownHost}:${port}${GRAPHQL_PATH}`;
  console.log(`GraphQL ready at ${url} (database: ${database.mode === 'embedded' ? `embedded PostgreSQL in ${config.dataDir}` : 'DATABASE_URL'})`);
  if (demo) console.log(describeDemoKey(demo, url));

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received: closing connections`);
    server.closeIdleConnections();
    await new Promise((resolve) => server.close(resolve));
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: Error) => {
  const expected = [ConfigError, EmbeddedPostgresError, DatabaseUnavailableError].some((type) => error instanceof type);
  console.error(expected ? error.message : error);
  process.exit(1);
});
