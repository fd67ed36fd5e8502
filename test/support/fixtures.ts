// Loads the shared import fixture into a test database (through the real importer) and issues keys.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { EntityManager } from '@mikro-orm/postgresql';
import { importDocument } from '../../src/import/importer.ts';
import { SecretCipher } from '../../src/modules/secrets/secret-cipher.ts';
import { issueApiKey } from '../../src/modules/tenancy/api-key.service.ts';

export const FIXTURE_PATH = new URL('../fixtures/full-import.json', import.meta.url);
export const fixtureText = () => fs.readFileSync(FIXTURE_PATH, 'utf8');
export const ACME = '11111111-1111-4111-8111-111111111111';
export const GLOBEX = '22222222-2222-4222-8222-222222222222';
export const ACME_DEPLOYMENT = '55555555-5555-4555-8555-555555555555';
export const GLOBEX_DEPLOYMENT = '88888888-8888-4888-8888-888888888888';
export const ACME_INTEGRATION = '33333333-3333-4333-8333-333333333333';
export const GLOBEX_INTEGRATION = '99999999-9999-4999-8999-999999999999';

export const newCipher = () => new SecretCipher(randomBytes(32));

export async function importFixture(em: EntityManager, cipher: SecretCipher): Promise<void> {
  await importDocument(em, fixtureText(), cipher);
}

export async function issueKey(em: EntityManager, tenantIds: string[], mayReadSecrets = false, mayWrite = false, mayReconcile = false): Promise<string> {
  return (await issueApiKey(em.fork(), { tenantIds, name: 'test', mayReadSecrets, mayWrite, mayReconcile })).key;
}
