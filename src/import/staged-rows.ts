// The rows of the import's own staging tables (staging-tables.ts) for one checked record of the document: the
// values the old unit-of-work importer gave its entities, in the form PostgreSQL stores them. Configuration objects are stored as jsonb with the legacy
// keys and every declared key present (null when absent), exactly as MikroORM wrote the embeddables: a key
// dropped from a record is cleared, not kept. Secrets are sealed by the staging writer (it first asks which
// stored values are already up to date).
import { withDeclaredKeys } from '../modules/common/legacy-json.ts';
import { deploymentRecordSchema, resourceSpecSchema, sourceRevisionConfigSchema } from '../modules/deployments/deployment-record.schema.ts';
import type { ImportedRevision } from '../modules/revisions/revision-record.schema.ts';
import type { ImportedDeployment, ImportedIntegration, ImportedTag, ImportedTenant } from './document.schema.ts';
import type { StagedRow } from './staging-tables.ts';

/** `source_config` as its column holds it: the resource spec and the deployment type have columns of their own. */
const storedSourceConfigSchema = deploymentRecordSchema.shape.source_config.omit({ resource_spec: true, deployment_type: true });

/** jsonb text of a configuration object with every declared key; null stays null. */
function configJson(schema: Parameters<typeof withDeclaredKeys>[0], value: unknown): string | null {
  return value ? JSON.stringify(withDeclaredKeys(schema, value)) : null;
}

type JsonObject = Record<string, unknown>;
const SPEC_LISTS = ['image_pull_secrets', 'volumes', 'volume_mounts', 'init_containers', 'sidecars'];
const CONTAINER_LISTS = ['env', 'volumeMounts'];

function dropNull(object: JsonObject, keys: string[]): void {
  for (const key of keys) if (object[key] === null) delete object[key];
}

/**
 * The resource spec as the previous importer (MikroORM) stored a new one: a null list of Kubernetes objects (a
 * spec's image_pull_secrets, volumes, volume_mounts, init_containers and sidecars, a container's env and
 * volumeMounts) was left out, where every other absent key is stored as null. Reading gives null either way;
 * the rows stay identical, and a re-import compares equal. (MikroORM stored the spec's lists as null when it
 * updated a row, and so rewrote such rows on every import; this importer stores one form.)
 */
function resourceSpecJson(spec: unknown): string | null {
  if (!spec) return null;
  const filled = withDeclaredKeys(resourceSpecSchema, spec) as JsonObject & { init_containers: JsonObject[] | null; sidecars: JsonObject[] | null };
  for (const container of [...(filled.init_containers ?? []), ...(filled.sidecars ?? [])]) dropNull(container, CONTAINER_LISTS);
  dropNull(filled, SPEC_LISTS);
  return JSON.stringify(filled);
}

export function stagedTenantRow(tenant: ImportedTenant, position: number): StagedRow<'import_tenant'> {
  return { position, id: tenant.id, name: tenant.name };
}

export function stagedTagRows(tag: ImportedTag, position: number) {
  return {
    tag: { position, tenant_id: tag.tenant_id, key: tag.key } satisfies StagedRow<'import_tag'>,
    values: tag.values.map((value, j): StagedRow<'import_tag_value'> => ({
      tag_position: position, position: j, id: value.id, tenant_id: tag.tenant_id, key: tag.key, value: value.value,
    })),
  };
}

export function stagedIntegrationRows(integration: ImportedIntegration, position: number) {
  const { id, tenant_id } = integration;
  return {
    integration: {
      position, id, tenant_id, kind: integration.kind, codehost: integration.codehost, name: integration.name,
      installation_id: integration.installation_id ?? null,
    } satisfies StagedRow<'import_integration'>,
    repositories: integration.repositories.map((repo, j): StagedRow<'import_repository'> => ({
      integration_position: position, position: j, integration_id: id, tenant_id, code_host_id: repo.id,
      name: repo.name, owner: repo.owner, url: repo.url, default_branch: repo.default_branch,
    })),
  };
}

/** A revision without `source` takes its deployment's; without `updated_at`, its `created_at` (docs/decisions.md#revisions). */
function stagedRevisionRow(revision: ImportedRevision, j: number, deployment: ImportedDeployment, position: number): StagedRow<'import_revision'> {
  return {
    deployment_position: position, position: j, id: revision.id, deployment_id: deployment.id, tenant_id: deployment.tenant_id,
    status: revision.status, source: revision.source ?? deployment.source,
    source_revision_config: configJson(sourceRevisionConfigSchema, revision.source_revision_config),
    remote_reconciled: revision.remote_reconciled, created_at: revision.created_at,
    updated_at: revision.updated_at ?? revision.created_at,
  };
}

export function stagedDeploymentRows(deployment: ImportedDeployment, position: number) {
  const { id, tenant_id } = deployment;
  const owned = { deployment_position: position, deployment_id: id, tenant_id };
  const { resource_spec: resourceSpec, deployment_type: deploymentType, ...sourceConfig } = deployment.source_config;
  return {
    deployment: {
      position, id, tenant_id, name: deployment.name, status: deployment.status, source: deployment.source,
      deployment_type: deploymentType, remote_reconciled: deployment.remote_reconciled,
      image_version: deployment.image_version ?? null,
      source_config: configJson(storedSourceConfigSchema, sourceConfig),
      resource_spec: resourceSpecJson(resourceSpec),
      source_revision_config: configJson(sourceRevisionConfigSchema, deployment.source_revision_config),
      latest_revision_id: deployment.latest_revision_id ?? null, active_revision_id: deployment.active_revision_id ?? null,
      created_at: deployment.created_at, updated_at: deployment.updated_at,
      integration_id: deployment.source_config.integration_id ?? null,
    } satisfies StagedRow<'import_deployment'>,
    secrets: (deployment.secrets ?? []).map(({ name, value }, j) => ({ ...owned, position: j, name, value })),
    secretReferences: (deployment.secret_references ?? []).map((ref, j): StagedRow<'import_secret_reference'> => ({
      ...owned, position: j, name: ref.name, secret_name: ref.secret_name, secret_key: ref.secret_key,
    })),
    tagLinks: deployment.tag_value_ids.map((tagValueId, j): StagedRow<'import_tag_link'> => ({ ...owned, position: j, tag_value_id: tagValueId })),
    revisions: deployment.revisions.map((revision, j) => stagedRevisionRow(revision, j, deployment, position)),
  };
}

export type StagedSecret = ReturnType<typeof stagedDeploymentRows>['secrets'][number];
