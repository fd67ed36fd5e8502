// The secrets and secret references of many deployments in one statement. Pages and dashboards read both:
// one round trip instead of two, and no query building on the hottest path (see docs/performance.md#sql-statements).
// Hand-written SQL, so the tenant condition is written out too, from the EntityManager's own scope.
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';
import { scopedTenantId } from '../common/tenant-scope.ts';
import { uuidLiterals } from '../common/uuid.ts';
import type { SecretReferenceReadModel, SecretReadModel } from './deployment-read-model.ts';

export interface SecretsOfDeployment {
  secrets: SecretReadModel[];
  references: SecretReferenceReadModel[];
}

type ListedRow = SecretReadModel & Partial<SecretReferenceReadModel> & { is_reference: boolean };

/**
 * Ciphertexts are read only when the caller may see secret values, as base64 text: the key that finds a value
 * kept decrypted (decrypted-values-cache.ts) as it arrives, and a third fewer bytes than bytea's hex, which the
 * driver then decoded into a Buffer per value (docs/performance.md#secret-revealing-pages). `ids`: checked
 * literals (uuidLiterals).
 */
const statement = (withCiphertexts: boolean, ids: string) => `
  select deployment_id, false as is_reference, position, name, ${withCiphertexts ? "encode(value_ciphertext, 'base64') as value_ciphertext, key_fingerprint" : 'null::text as value_ciphertext, null::text as key_fingerprint'},
         null::text as secret_name, null::text as secret_key
    from secret where tenant_id = ? and deployment_id in (${ids})
  union all
  select deployment_id, true, position, name, null, null, secret_name, secret_key
    from secret_reference where tenant_id = ? and deployment_id in (${ids})
  order by is_reference, position`;

export async function secretsAndReferencesOf(
  em: TenantSafeEntityManager, deploymentIds: readonly string[], withCiphertexts: boolean,
): Promise<SecretsOfDeployment[]> {
  if (deploymentIds.length === 0) return [];
  const tenantId = scopedTenantId(em, 'Secret');
  const ids = uuidLiterals([...new Set(deploymentIds)]);
  // In the EntityManager's transaction when it has one: a write's answer lists what the write made.
  const rows = await em.getConnection().execute<ListedRow[]>(statement(withCiphertexts, ids), [tenantId, tenantId], 'all', em.getTransactionContext());
  // Each deployment's lists, filled in one pass over the rows (in their order: by position within a deployment).
  const listed = new Map<string, SecretsOfDeployment>(deploymentIds.map((id) => [id, { secrets: [], references: [] }]));
  for (const { deployment_id, is_reference, name, value_ciphertext, key_fingerprint, secret_name, secret_key } of rows) {
    const ofDeployment = listed.get(deployment_id);
    if (!ofDeployment) continue;
    if (is_reference) ofDeployment.references.push({ deployment_id, name, secret_name: secret_name!, secret_key: secret_key! });
    else if (withCiphertexts) ofDeployment.secrets.push({ deployment_id, name, value_ciphertext: value_ciphertext!, key_fingerprint: key_fingerprint ?? null });
    else ofDeployment.secrets.push({ deployment_id, name });
  }
  return deploymentIds.map((id) => listed.get(id)!);
}
