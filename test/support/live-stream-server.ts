// The app as a process of its own, for measuring what open subscription streams cost it: the test's own heap
// (its HTTP clients) stays out of the numbers. Started with --expose-gc; DATABASE_URL names the test database.
// Sends { port } once listening; answers 'measure' with its memory after a full garbage collection.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { MikroORM } from '@mikro-orm/postgresql';
import { createApp } from '../../src/app.ts';
import { DatabaseNotifications } from '../../src/db/database-notifications.ts';
import { createOrmConfig, type AppOrm } from '../../src/db/orm-config.ts';
import { entities } from '../../src/modules/entities.ts';
import { FEED_CHANNELS } from '../../src/modules/deployments/live/deployment-change-feed.ts';
import { SecretCipher } from '../../src/modules/secrets/secret-cipher.ts';
import { ApiKeyCache } from '../../src/modules/tenancy/api-key-cache.ts';
import { REVOCATION_CHANNEL } from '../../src/modules/tenancy/api-key-revocations.ts';

export interface Measurement {
  heapUsed: number;
  rss: number;
  openStreams: number;
}

const clientUrl = process.env.DATABASE_URL!;
const orm = (await MikroORM.init(createOrmConfig({ entities, clientUrl }))) as unknown as AppOrm;
const notifications = new DatabaseNotifications([REVOCATION_CHANNEL, ...FEED_CHANNELS]);
const apiKeys = new ApiKeyCache();
apiKeys.listenTo(notifications);
await notifications.start(clientUrl);
const app = createApp({ orm, cipher: new SecretCipher(randomBytes(32)), apiKeys, notifications }, { subscriptionsPerKey: 1000 });
await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
const gc = (globalThis as { gc?: () => void }).gc!;

process.on('message', (message) => {
  if (message !== 'measure') return;
  gc();
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  process.send!({ heapUsed, rss, openStreams: app.deploymentChanges.size } satisfies Measurement);
});
process.on('disconnect', () => process.exit(0));
process.send!({ port: (app.server.address() as AddressInfo).port });
