// Deployments for the live-update tests, written through the real importer (or, for what no import does, a
// deletion, straight into the tables), and a service set up as the real one: one LISTEN connection shared by
// the key cache and the change feed.
import type { EntityManager } from '@mikro-orm/postgresql';
import { DatabaseNotifications } from '../../src/db/database-notifications.ts';
import { FEED_CHANNELS } from '../../src/modules/deployments/live/deployment-change-feed.ts';
import { ApiKeyCache } from '../../src/modules/tenancy/api-key-cache.ts';
import { REVOCATION_CHANNEL } from '../../src/modules/tenancy/api-key-revocations.ts';
import type { SecretCipher } from '../../src/modules/secrets/secret-cipher.ts';
import { startApp, type AppSetup, type RunningApp } from './app-server.ts';
import { importExtra, type DocDeployment } from './graphql-expect.ts';
import type { TestDatabase } from './test-database.ts';

export interface LiveService {
  app: RunningApp;
  notifications: DatabaseNotifications;
  close(): Promise<void>;
}

export async function startLiveService(db: TestDatabase, cipher: SecretCipher, setup: AppSetup = {}): Promise<LiveService> {
  const notifications = new DatabaseNotifications([REVOCATION_CHANNEL, ...FEED_CHANNELS]);
  const apiKeys = new ApiKeyCache();
  apiKeys.listenTo(notifications);
  await notifications.start(db.url);
  const app = await startApp(db.orm, cipher, apiKeys, { ...setup, notifications });
  return {
    app, notifications,
    async close() {
      await app.close();
      apiKeys.stop();
      await notifications.stop();
    },
  };
}

let sequence = 0;

/** A new deployment id of the form the fixtures use (unique within the test run). */
export const newDeploymentId = () => `dddddddd-0000-4000-8000-${String(++sequence).padStart(12, '0')}`;

/** An import record for a deployment; `more` overrides or adds fields. */
export function deploymentRecord(id: string, tenantId: string, name: string, status: string, more: Partial<DocDeployment> = {}): DocDeployment {
  return {
    id, tenant_id: tenantId, name, status, source: 'internal_source', source_config: { deployment_type: 'dev' },
    created_at: '2026-02-01T00:00:00Z', updated_at: '2026-02-01T00:00:00Z', latest_revision_id: null, active_revision_id: null,
    ...more,
  };
}

export const importDeployments = (em: EntityManager, cipher: SecretCipher, deployments: DocDeployment[]) =>
  importExtra(em, cipher, { deployments });

/** What no import does: deletes a deployment with everything that belongs to it. */
export async function deleteDeployment(db: TestDatabase, id: string): Promise<void> {
  await db.query(`begin;
    delete from revision where deployment_id = '${id}'; delete from secret where deployment_id = '${id}';
    delete from secret_reference where deployment_id = '${id}'; delete from deployment where id = '${id}';
    commit;`);
}
