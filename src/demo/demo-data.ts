// First embedded start: load the demo tenant and mint a demo API key. The key's plaintext is kept only in
// a file beside the embedded data (owner-readable), so that later starts can print it again.
import type { AppOrm } from '../db/orm-config.ts';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { importDocument } from '../import/importer.ts';
import type { SecretCipher } from '../modules/secrets/secret-cipher.ts';
import { ApiKeySchema } from '../modules/tenancy/api-key.entity.ts';
import { issueApiKey } from '../modules/tenancy/api-key.service.ts';
import { TenantSchema } from '../modules/tenancy/tenant.entity.ts';
import { ACROSS_TENANTS } from '../modules/common/tenant-scope.ts';
import { buildDemoDocument, DEMO_TENANT_ID } from './demo-dataset.ts';

export const DEMO_KEY_FILE = 'demo-api-key';

export type DemoKey = { key: string } | { revokedPrefix: string };

export async function ensureDemoData(orm: AppOrm, cipher: SecretCipher, dataDir: string): Promise<DemoKey> {
  const em = orm.em.fork();
  if (!(await em.findOne(TenantSchema, { id: DEMO_TENANT_ID }, ACROSS_TENANTS))) {
    await importDocument(em, JSON.stringify(buildDemoDocument()), cipher);
  }
  const keyFile = path.join(dataDir, DEMO_KEY_FILE);
  let key = existsSync(keyFile) ? (await fs.readFile(keyFile, 'utf8')).trim() : undefined;
  if (key) {
    const stored = await em.getRepository(ApiKeySchema).findByPresentedKey(key);
    if (!stored) key = undefined; // the database was replaced: issue a new key below
    else if (stored.revokedAt) return { revokedPrefix: stored.prefix };
    else if (!stored.mayWrite || !stored.mayReconcile) {
      // A demo key issued before writes or data planes existed: the demo key is the newcomer's, and may do
      // everything in the demo tenant, running the simulated data plane included.
      stored.mayWrite = true;
      stored.mayReconcile = true;
      await em.flush();
    }
  }
  if (!key) {
    ({ key } = await issueApiKey(em, { tenantIds: [DEMO_TENANT_ID], name: 'demo', mayReadSecrets: true, mayWrite: true, mayReconcile: true }));
    await fs.writeFile(keyFile, `${key}\n`, { mode: 0o600 });
  }
  return { key };
}
