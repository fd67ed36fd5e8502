// Conversions between a Deployment entity and the legacy deployment record (deployment-record.schema.ts), for
// the tests only: import.test.ts reads a deployment back through the entity as GET /v2/deployments shows it,
// and the reference importer writes records through the entity. The service makes the legacy JSON at the REST
// edge only (src/rest/deployments.route.ts), from the GraphQL answer.
import { camelCase, mapKeys, snakeCase, withDeclaredKeys } from '../../src/modules/common/legacy-json.ts';
import type { Deployment } from '../../src/modules/deployments/deployment.entity.ts';
import { deploymentRecordSchema, type DeploymentRecordInput } from '../../src/modules/deployments/deployment-record.schema.ts';

/** The entity columns a record describes (relations such as secrets and tags are handled by the caller). */
export function deploymentColumnsFromRecord(record: DeploymentRecordInput) {
  const { resource_spec: resourceSpec, deployment_type: deploymentType, listener_config: listenerConfig, ...sourceConfig } =
    record.source_config;
  return {
    name: record.name,
    status: record.status,
    source: record.source,
    deploymentType,
    imageVersion: record.image_version ?? null,
    sourceConfig: {
      ...mapKeys(sourceConfig, camelCase),
      listenerConfig: listenerConfig ? mapKeys(listenerConfig, camelCase) : null,
    },
    resourceSpec: resourceSpec ? mapKeys(resourceSpec, camelCase) : null,
    sourceRevisionConfig: record.source_revision_config ? mapKeys(record.source_revision_config, camelCase) : null,
    latestRevisionId: record.latest_revision_id ?? null,
    activeRevisionId: record.active_revision_id ?? null,
    createdAt: record.created_at,
    updatedAt: record.updated_at,
  };
}

export interface RecordSecrets {
  secrets: { name: string; value: string }[];
  secretReferences: { name: string; secretName: string; secretKey: string }[];
}

/** The legacy record for a deployment; every declared key is present, absent values are null. */
export function toDeploymentRecord(deployment: Deployment, { secrets, secretReferences }: RecordSecrets): Record<string, unknown> {
  const sourceConfig = deployment.sourceConfig;
  const raw = {
    name: deployment.name,
    source_config: {
      ...mapKeys(sourceConfig, snakeCase),
      listener_config: sourceConfig.listenerConfig ? mapKeys(sourceConfig.listenerConfig, snakeCase) : null,
      resource_spec: deployment.resourceSpec ? mapKeys(deployment.resourceSpec, snakeCase) : null,
      deployment_type: deployment.deploymentType,
    },
    source_revision_config: deployment.sourceRevisionConfig ? mapKeys(deployment.sourceRevisionConfig, snakeCase) : null,
    secrets: secrets.map(({ name, value }) => ({ name, value })),
    id: deployment.id,
    tenant_id: deployment.tenant.id,
    created_at: deployment.createdAt.toISOString(),
    updated_at: deployment.updatedAt.toISOString(),
    latest_revision_id: deployment.latestRevisionId,
    active_revision_id: deployment.activeRevisionId,
    secret_references: secretReferences.map((ref) => ({ name: ref.name, secret_name: ref.secretName, secret_key: ref.secretKey })),
    image_version: deployment.imageVersion,
    status: deployment.status,
    source: deployment.source,
  };
  return withDeclaredKeys(deploymentRecordSchema, raw) as Record<string, unknown>;
}
