// THE PREVIOUS IMPORTER, kept only as the oracle of test/import-at-scale.test.ts: the streaming importer
// (src/import) must write exactly the rows this one wrote. Nothing outside the tests uses it.
//
// Writes a parsed import document in one transaction. Rows are matched by id (tag keys by tenant and key,
// repositories by integration and code-host id) and changed only where the document differs, so importing
// the same file twice changes nothing. Lists a record owns (an integration's repositories, a deployment's
// secrets, secret references and tags) are replaced by what the document lists.
//
// The import is an operator tool spanning tenants: it opts out of the tenant filter explicitly, query by
// query, and instead refuses any record that would move or reach into another tenant's rows.
import { ReferenceKind, type EntityManager } from '@mikro-orm/postgresql';
import { TenantSchema } from '../../../src/modules/tenancy/tenant.entity.ts';
import { IntegrationSchema } from '../../../src/modules/integrations/integration.entity.ts';
import { SourceRepositorySchema, type SourceRepository } from '../../../src/modules/integrations/source-repository.entity.ts';
import { TagKeySchema, TagValueSchema, type TagKey, type TagValue } from '../../../src/modules/deployments/tag.entity.ts';
import type { SecretCipher } from '../../../src/modules/secrets/secret-cipher.ts';
import type { ImportDocument } from './document.schema.ts';
import { ImportError } from './parse-document.ts';
import { importDeployments } from './import-deployments.ts';
import { assertSameTenant } from './import-rules.ts';
import { ACROSS_TENANTS } from '../../../src/modules/common/tenant-scope.ts';

export interface ImportSummary {
  created: number;
  updated: number;
  deleted: number;
}

async function importTenants(em: EntityManager, doc: ImportDocument): Promise<void> {
  const existing = new Map((await em.find(TenantSchema, { id: { $in: doc.tenants.map((t) => t.id) } }, ACROSS_TENANTS)).map((t) => [t.id, t]));
  for (const tenant of doc.tenants) {
    const row = existing.get(tenant.id);
    if (row) em.assign(row, { name: tenant.name });
    else em.create(TenantSchema, { id: tenant.id, name: tenant.name });
  }
  const referenced: [string, string][] = [
    ...doc.tags.map((t, i): [string, string] => [t.tenant_id, `tags[${i}].tenant_id`]),
    ...doc.integrations.map((t, i): [string, string] => [t.tenant_id, `integrations[${i}].tenant_id`]),
    ...doc.deployments.map((t, i): [string, string] => [t.tenant_id, `deployments[${i}].tenant_id`]),
  ];
  const declared = new Set(doc.tenants.map((t) => t.id));
  const outside = [...new Set(referenced.map(([id]) => id).filter((id) => !declared.has(id)))];
  const found = new Set((await em.find(TenantSchema, { id: { $in: outside } }, { ...ACROSS_TENANTS, fields: ['id'] })).map((t) => t.id));
  const missing = referenced.find(([id]) => !declared.has(id) && !found.has(id));
  if (missing) throw new ImportError(missing[1], `tenant ${missing[0]} is neither in "tenants" nor in the database`);
}

/** Returns every tag value the document declares, by id, for the deployments to link. */
async function importTags(em: EntityManager, doc: ImportDocument): Promise<Map<string, TagValue>> {
  const tenantIds = [...new Set(doc.tags.map((t) => t.tenant_id))];
  const keys = await em.find(TagKeySchema, { tenant: { $in: tenantIds } }, { ...ACROSS_TENANTS, populate: ['values'] });
  const keyByName = new Map(keys.map((k) => [`${k.tenant.id}/${k.key}`, k]));
  const valueIds = doc.tags.flatMap((t) => t.values.map((v) => v.id));
  const valuesById = new Map((await em.find(TagValueSchema, { id: { $in: valueIds } }, ACROSS_TENANTS)).map((v) => [v.id, v]));
  const declared = new Map<string, TagValue>();

  doc.tags.forEach((tag, i) => {
    const tenant = em.getReference(TenantSchema, tag.tenant_id);
    let tagKey: TagKey | undefined = keyByName.get(`${tag.tenant_id}/${tag.key}`);
    tagKey ??= em.create(TagKeySchema, { tenant, key: tag.key });
    tag.values.forEach((value, j) => {
      const path = `tags[${i}].values[${j}]`;
      const row = valuesById.get(value.id);
      assertSameTenant(row, tag.tenant_id, `${path}.id`);
      const clash = tagKey.values.isInitialized() ? tagKey.values.getItems().find((v) => v.value === value.value && v.id !== value.id) : undefined;
      if (clash) throw new ImportError(path, `value "${value.value}" of key "${tag.key}" already exists with id ${clash.id}`);
      if (row) em.assign(row, { tagKey, value: value.value });
      declared.set(value.id, row ?? em.create(TagValueSchema, { id: value.id, tenant, tagKey, value: value.value }));
    });
  });
  return declared;
}

async function importIntegrations(em: EntityManager, doc: ImportDocument): Promise<void> {
  const ids = doc.integrations.map((i) => i.id);
  const existing = new Map((await em.find(IntegrationSchema, { id: { $in: ids } }, ACROSS_TENANTS)).map((i) => [i.id, i]));
  const repositories = await em.find(SourceRepositorySchema, { integration: { $in: ids } }, ACROSS_TENANTS);
  const reposByIntegration = Map.groupBy(repositories, (r) => r.integration.id);

  doc.integrations.forEach((input, i) => {
    const row = existing.get(input.id);
    assertSameTenant(row, input.tenant_id, `integrations[${i}].id`);
    const tenant = em.getReference(TenantSchema, input.tenant_id);
    const fields = { kind: input.kind, codehost: input.codehost, name: input.name, installationId: input.installation_id ?? null };
    const integration = row ? em.assign(row, fields) : em.create(IntegrationSchema, { id: input.id, tenant, ...fields });

    const current = new Map<number, SourceRepository>((reposByIntegration.get(input.id) ?? []).map((r) => [r.codeHostId, r]));
    for (const repo of input.repositories) {
      const repoFields = { name: repo.name, owner: repo.owner, url: repo.url, defaultBranch: repo.default_branch };
      const existingRepo = current.get(repo.id);
      current.delete(repo.id);
      if (existingRepo) em.assign(existingRepo, repoFields);
      else em.create(SourceRepositorySchema, { tenant, integration, codeHostId: repo.id, ...repoFields });
    }
    for (const gone of current.values()) em.remove(gone);
  });
}

function summarize(em: EntityManager): ImportSummary {
  const uow = em.getUnitOfWork();
  uow.computeChangeSets();
  const summary: ImportSummary = { created: 0, updated: 0, deleted: 0 };
  const changed = new Set<object>();
  for (const changeSet of uow.getChangeSets()) {
    changed.add(changeSet.entity);
    if (changeSet.type === 'create') summary.created++;
    else if (changeSet.type === 'update') summary.updated++;
    else summary.deleted++;
  }
  // A changed many-to-many collection (a deployment's tags) has no change set of its own.
  const linkUpdates = uow.getCollectionUpdates().filter((collection) => collection.property.kind === ReferenceKind.MANY_TO_MANY);
  const ownersOfChangedLinks = new Set(linkUpdates.map((collection) => collection.owner));
  for (const owner of ownersOfChangedLinks) if (!changed.has(owner)) summary.updated++;
  return summary;
}

/** Imports `doc` atomically: on any error nothing is written. */
export async function importDocument(em: EntityManager, doc: ImportDocument, cipher: SecretCipher): Promise<ImportSummary> {
  // flushMode 'commit': nothing is written before every check has passed, and the summary sees every change.
  return em.fork({ flushMode: 'commit' }).transactional(async (tx) => {
    await importTenants(tx, doc);
    const tagValues = await importTags(tx, doc);
    await importIntegrations(tx, doc);
    await importDeployments(tx, doc, tagValues, cipher);
    return summarize(tx);
  });
}
