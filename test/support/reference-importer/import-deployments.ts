// Deployments of an import document, with their secrets (encrypted here, before anything is written),
// secret references, tag links and revisions (import-revisions.ts). See importer.ts for the rules.
import type { EntityManager } from '@mikro-orm/postgresql';
import { TenantSchema } from '../../../src/modules/tenancy/tenant.entity.ts';
import { IntegrationSchema } from '../../../src/modules/integrations/integration.entity.ts';
import { DeploymentSchema, type Deployment } from '../../../src/modules/deployments/deployment.entity.ts';
import { SecretSchema, type Secret } from '../../../src/modules/deployments/secret.entity.ts';
import { SecretReferenceSchema } from '../../../src/modules/deployments/secret-reference.entity.ts';
import { TagValueSchema, type TagValue } from '../../../src/modules/deployments/tag.entity.ts';
import { deploymentColumnsFromRecord } from '../deployment-record.ts';
import { deploymentRecordSchema, type DeploymentRecordInput } from '../../../src/modules/deployments/deployment-record.schema.ts';
import type { SecretCipher } from '../../../src/modules/secrets/secret-cipher.ts';
import { withDeclaredKeys } from '../../../src/modules/common/legacy-json.ts';
import type { ImportDocument, ImportedDeployment } from './document.schema.ts';
import { ImportError } from './parse-document.ts';
import { assertSameTenant } from './import-rules.ts';
import { importRevisions } from './import-revisions.ts';
import { ACROSS_TENANTS } from '../../../src/modules/common/tenant-scope.ts';

async function resolveTagValues(em: EntityManager, doc: ImportDocument, declared: Map<string, TagValue>) {
  const undeclared = [...new Set(doc.deployments.flatMap((d) => d.tag_value_ids).filter((id) => !declared.has(id)))];
  const stored = await em.find(TagValueSchema, { id: { $in: undeclared } }, ACROSS_TENANTS);
  const all = new Map([...stored.map((v): [string, TagValue] => [v.id, v]), ...declared]);
  return (deployment: ImportedDeployment, index: number): TagValue[] =>
    deployment.tag_value_ids.map((id, j) => {
      const value = all.get(id);
      if (!value || value.tenant.id !== deployment.tenant_id) {
        throw new ImportError(`deployments[${index}].tag_value_ids[${j}]`, `tag value ${id} does not exist in tenant ${deployment.tenant_id}`);
      }
      return value;
    });
}

/** `source_config.integration_id` may name an integration we do not know, but never another tenant's. */
async function checkIntegrationReferences(em: EntityManager, doc: ImportDocument): Promise<void> {
  const owners = new Map(doc.integrations.map((i) => [i.id, i.tenant_id]));
  const ids = doc.deployments.map((d) => d.source_config.integration_id).filter((id): id is string => !!id && !owners.has(id));
  for (const integration of await em.find(IntegrationSchema, { id: { $in: ids } }, ACROSS_TENANTS)) {
    owners.set(integration.id, integration.tenant.id);
  }
  doc.deployments.forEach((deployment, i) => {
    const id = deployment.source_config.integration_id;
    const owner = id ? owners.get(id) : undefined;
    if (owner && owner !== deployment.tenant_id) {
      throw new ImportError(`deployments[${i}].source_config.integration_id`, `integration ${id} belongs to another tenant`);
    }
  });
}

/** The row already holds `value` under the current key (a row under a previous key is rewritten: no import undoes a rotation). */
function upToDate(cipher: SecretCipher, secret: Secret, value: string): boolean {
  if (secret.keyFingerprint !== cipher.fingerprint) return false;
  try {
    return cipher.decrypt(secret.valueCiphertext, { deploymentId: secret.deployment.id, name: secret.name }, secret.keyFingerprint) === value;
  } catch {
    return false; // unreadable: replace it
  }
}

function importSecrets(em: EntityManager, deployment: Deployment, input: ImportedDeployment, cipher: SecretCipher): void {
  const current = new Map(deployment.secrets.getItems().map((s) => [s.name, s]));
  (input.secrets ?? []).forEach(({ name, value }, position) => {
    const row = current.get(name);
    current.delete(name);
    const slot = { deploymentId: deployment.id, name };
    if (!row) {
      em.create(SecretSchema, { tenant: deployment.tenant, deployment, name, position, ...cipher.seal(value, slot) });
      return;
    }
    if (row.position !== position) row.position = position;
    if (!upToDate(cipher, row, value)) Object.assign(row, cipher.seal(value, slot));
  });
  for (const gone of current.values()) em.remove(gone);

  const references = new Map(deployment.secretReferences.getItems().map((r) => [r.name, r]));
  (input.secret_references ?? []).forEach((ref, position) => {
    const fields = { secretName: ref.secret_name, secretKey: ref.secret_key, position };
    const row = references.get(ref.name);
    references.delete(ref.name);
    if (row) em.assign(row, fields);
    else em.create(SecretReferenceSchema, { tenant: deployment.tenant, deployment, name: ref.name, ...fields });
  });
  for (const gone of references.values()) em.remove(gone);
}

export async function importDeployments(
  em: EntityManager, doc: ImportDocument, declaredTagValues: Map<string, TagValue>, cipher: SecretCipher,
): Promise<void> {
  const existing = new Map((await em.find(DeploymentSchema, { id: { $in: doc.deployments.map((d) => d.id) } }, {
    ...ACROSS_TENANTS,
    populate: ['secrets', 'secretReferences', 'tagValues'],
  })).map((d) => [d.id, d]));
  const tagValuesOf = await resolveTagValues(em, doc, declaredTagValues);
  const imported = new Map<string, Deployment>();

  doc.deployments.forEach((input, i) => {
    const row = existing.get(input.id);
    assertSameTenant(row, input.tenant_id, `deployments[${i}].id`);
    // Every declared key, absent ones as null, so a field dropped from the document is cleared, not kept.
    const columns = deploymentColumnsFromRecord(withDeclaredKeys(deploymentRecordSchema, input) as DeploymentRecordInput);
    const deployment = row
      ? em.assign(row, columns)
      : em.create(DeploymentSchema, { id: input.id, tenant: em.getReference(TenantSchema, input.tenant_id), remoteReconciled: false, ...columns });
    if (deployment.remoteReconciled !== input.remote_reconciled) deployment.remoteReconciled = input.remote_reconciled;
    deployment.tagValues.set(tagValuesOf(input, i));
    importSecrets(em, deployment, input, cipher);
    imported.set(input.id, deployment);
  });
  await checkIntegrationReferences(em, doc);
  await importRevisions(em, doc, imported);
}
