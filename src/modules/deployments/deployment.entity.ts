import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../common/base.entity.ts';
import {
  DEPLOYMENT_SOURCES, DEPLOYMENT_STATUSES, DEPLOYMENT_TYPES,
  type DeploymentSource, type DeploymentStatus, type DeploymentType,
} from './deployment-enums.ts';
import { ResourceSpecSchema } from './resource-spec.embeddable.ts';
import { SourceConfigSchema, SourceRevisionConfigSchema } from './source-config.embeddable.ts';
import { TagValueSchema } from './tag.entity.ts';
import { DeploymentTagValueSchema } from './deployment-tag-value.entity.ts';
import { SecretSchema } from './secret.entity.ts';
import { SecretReferenceSchema } from './secret-reference.entity.ts';
import { DeploymentRepository } from './deployment.repository.ts';

export const DeploymentSchema = defineEntity({
  name: 'Deployment',
  repository: () => DeploymentRepository,
  extends: TenantOwnedSchema,
  // The listing orders by created_at desc, id desc within a tenant; this index serves that and deep offsets.
  indexes: [
    { properties: ['tenant', 'createdAt', 'id'] },
    // A create looks its name up within the tenant (names are unique there: writes/deployment-writer.ts).
    { properties: ['tenant', 'name'] },
    // name_contains is a substring search (ILIKE '%…%'): only a trigram index can serve it (pg_trgm).
    { name: 'deployment_name_trgm_idx', expression: 'create index "deployment_name_trgm_idx" on "deployment" using gin ("name" gin_trgm_ops)' },
  ],
  properties: {
    name: p.text(),
    status: p.enum([...DEPLOYMENT_STATUSES]).$type<DeploymentStatus>(),
    source: p.enum([...DEPLOYMENT_SOURCES]).$type<DeploymentSource>(),
    deploymentType: p.enum([...DEPLOYMENT_TYPES]).$type<DeploymentType>(),
    remoteReconciled: p.boolean().default(false),
    imageVersion: p.text().nullable(),
    sourceConfig: () => p.embedded(SourceConfigSchema).object(),
    resourceSpec: () => p.embedded(ResourceSpecSchema).object().nullable(),
    sourceRevisionConfig: () => p.embedded(SourceRevisionConfigSchema).object().nullable(),
    // Plain ids, not foreign keys: the service may report a revision before (or without) its record.
    latestRevisionId: p.uuid().nullable(),
    activeRevisionId: p.uuid().nullable(),
    tagValues: () => p.manyToMany(TagValueSchema).pivotEntity(() => DeploymentTagValueSchema),
    secrets: () => p.oneToMany(SecretSchema).mappedBy('deployment').orderBy({ position: 'asc' }),
    secretReferences: () => p.oneToMany(SecretReferenceSchema).mappedBy('deployment').orderBy({ position: 'asc' }),
    /**
     * Bumped by a trigger on every change of the row (a write, an import, a revision report): the ETag of the
     * deployment, which If-Match compares (docs/decisions.md#writes).
     */
    version: p.integer().default(1),
    // Timestamps belong to the upstream service (they arrive by import), so no onCreate/onUpdate hooks.
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export type Deployment = InferEntity<typeof DeploymentSchema>;
