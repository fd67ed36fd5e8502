// The rows an import writes, named by what the document names them by, to compare imports with each other.
import { expect } from 'vitest';
import type { SecretCipher } from '../../src/modules/secrets/secret-cipher.ts';
import type { TestDatabase } from './test-database.ts';

export type Rows = Record<string, Map<string, string>>;

/**
 * Every row of the tables an import writes, by the key the document names it by, as text. Ids the importer
 * generates are left out, ciphertexts are opened (each import seals with a fresh IV), and of the timestamps the
 * importer sets itself only whether the row was updated after it was made.
 */
export async function importedRows(db: TestDatabase, cipher: SecretCipher, { nullListsAsAbsent = false } = {}): Promise<Rows> {
  // The previous importer stored a resource spec's null lists of Kubernetes objects as absent when it created a
  // row and as null when it updated one (both read as null); after updates, rows are compared with them absent.
  const spec = nullListsAsAbsent
    ? `resource_spec - array(select key from jsonb_each(resource_spec) where value = 'null'
         and key in ('image_pull_secrets', 'volumes', 'volume_mounts', 'init_containers', 'sidecars'))`
    : 'resource_spec';
  const select = async (key: string, sql: string) =>
    new Map((await db.query<{ key: string; row: string }>(`select (${key})::text as key, row::text from (${sql}) row`)).map((r) => [r.key, r.row]));
  // Whether a later import updated the row. The oracle (the ORM) stamps created_at and updated_at with two
  // clock readings, which straddle a millisecond now and then on a busy machine; a later import is seconds
  // later, so a few milliseconds apart still means "never updated".
  const updated = `updated_at > created_at + interval '50 milliseconds' as updated`;
  const secrets = await db.query<{ deployment_id: string; name: string; value_ciphertext: Buffer; key_fingerprint: string; rest: string }>(
    `select deployment_id::text, name, value_ciphertext, key_fingerprint, (tenant_id, position, key_fingerprint)::text as rest from secret`);
  return {
    tenant: await select('id', `select id, name, ${updated} from tenant`),
    tag_key: await select('tenant_id, key', 'select tenant_id, key from tag_key'),
    tag_value: await select('id', 'select v.id, v.tenant_id, k.key, v.value from tag_value v join tag_key k on k.id = v.tag_key_id'),
    integration: await select('id', `select id, tenant_id, kind, codehost, name, installation_id, ${updated} from integration`),
    source_repository: await select('integration_id, code_host_id', `select tenant_id, integration_id, code_host_id, name, owner, url, default_branch,
      ${updated} from source_repository`),
    deployment: await select('id', `select id, tenant_id, name, status, source, deployment_type, remote_reconciled, image_version,
      source_config, ${spec} as resource_spec, source_revision_config, latest_revision_id, active_revision_id, created_at, updated_at
      from deployment`),
    deployment_tag_value: await select('deployment_id, tag_value_id', 'select * from deployment_tag_value'),
    secret_reference: await select('deployment_id, name', 'select tenant_id, deployment_id, name, secret_name, secret_key, position from secret_reference'),
    revision: await select('id', 'select * from revision'),
    secret: new Map(secrets.map((s) => [`${s.deployment_id}/${s.name}`,
      `${s.rest} ${JSON.stringify(cipher.decrypt(s.value_ciphertext, { deploymentId: s.deployment_id, name: s.name }, s.key_fingerprint))}`])),
  };
}

const sorted = (table: Map<string, string>) => [...table].sort(([a], [b]) => (a < b ? -1 : 1));

export function expectSameRows(actual: Rows, expected: Rows): void {
  for (const table of Object.keys(expected)) expect(sorted(actual[table]!), table).toEqual(sorted(expected[table]!));
}

