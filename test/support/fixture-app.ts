// The shared fixture, plus extra import documents, behind a running app, with keys issued by name: the
// set-up of the tests that talk to the API about a few tenants' data.
import { startApp, type AppSetup, type RunningApp } from './app-server.ts';
import { importFixture, issueKey, newCipher } from './fixtures.ts';
import { importExtra, type Doc } from './graphql-expect.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';
import type { SecretCipher } from '../../src/modules/secrets/secret-cipher.ts';
import { DatabaseNotifications } from '../../src/db/database-notifications.ts';
import { FEED_CHANNELS } from '../../src/modules/deployments/live/deployment-change-feed.ts';
import { REVOCATION_CHANNEL } from '../../src/modules/tenancy/api-key-revocations.ts';

export interface KeySpec {
  tenants: string[];
  mayReadSecrets?: boolean;
  mayWrite?: boolean;
  mayReconcile?: boolean;
}

export interface FixtureApp<Name extends string> {
  db: TestDatabase;
  /** The cipher of the fixture's secrets (for another app on `db`). */
  cipher: SecretCipher;
  app: RunningApp;
  keys: Record<Name, string>;
  close(): Promise<void>;
}

/** `live`: with a LISTEN connection, as the service runs (subscriptions: live updates, data planes' wake-ups). */
export async function startFixtureApp<Name extends string>(
  extra: Doc[], keySpecs: Record<Name, KeySpec>, setup: AppSetup = {}, { live = false } = {},
): Promise<FixtureApp<Name>> {
  const db = await createTestDatabase();
  const notifications = live ? new DatabaseNotifications([REVOCATION_CHANNEL, ...FEED_CHANNELS]) : undefined;
  await notifications?.start(db.url);
  const cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  for (const doc of extra) await importExtra(db.orm.em, cipher, doc);
  const keys = {} as Record<Name, string>;
  for (const [name, spec] of Object.entries(keySpecs) as [Name, KeySpec][]) keys[name] = await issueKey(db.orm.em, spec.tenants, spec.mayReadSecrets, spec.mayWrite, spec.mayReconcile);
  const app = await startApp(db.orm, cipher, undefined, { notifications, ...setup });
  return {
    db, cipher, app, keys,
    async close() {
      await app.close();
      await notifications?.stop();
      await db.drop();
    },
  };
}
