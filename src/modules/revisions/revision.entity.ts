import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../common/base.entity.ts';
import { DeploymentSchema } from '../deployments/deployment.entity.ts';
import {
  DEPLOYMENT_SOURCES, REVISION_STATUSES, type DeploymentSource, type RevisionStatus,
} from '../deployments/deployment-enums.ts';
import { SourceRevisionConfigSchema } from '../deployments/source-config.embeddable.ts';
import { RevisionRepository } from './revision.repository.ts';

// One build-and-rollout of a deployment: everything the original's Revision record carries
// (docs/legacy-api.md#revision-record), plus the remote-reconciled flag its revision listing filters on
// (docs/decisions.md#revisions).
export const RevisionSchema = defineEntity({
  name: 'Revision',
  extends: TenantOwnedSchema,
  repository: () => RevisionRepository,
  // A deployment's revisions are listed newest first (created_at desc, id desc): this index serves that.
  indexes: [
    { properties: ['deployment', 'createdAt', 'id'] },
    // Data planes claim each tenant's oldest queued revisions first (revisions/lifecycle/data-plane-writer.ts).
    { name: 'revision_queued_idx', expression: 'create index "revision_queued_idx" on "revision" ("tenant_id", "created_at", "id") where "status" = \'QUEUED\'' },
    // A new revision supersedes its deployment's queued one (writes/deployment-writer.ts): found without reading
    // the deployment's or the tenant's other revisions.
    { name: 'revision_queued_deployment_idx', expression: 'create index "revision_queued_deployment_idx" on "revision" ("deployment_id") where "status" = \'QUEUED\'' },
  ],
  properties: {
    deployment: () => p.manyToOne(DeploymentSchema).ref(),
    status: p.enum([...REVISION_STATUSES]).$type<RevisionStatus>(),
    source: p.enum([...DEPLOYMENT_SOURCES]).$type<DeploymentSource>(),
    /** Null when the import did not say (a document of the older format): served with every key null. */
    sourceRevisionConfig: () => p.embedded(SourceRevisionConfigSchema).object().nullable(),
    remoteReconciled: p.boolean().default(false),
    /** What the data plane said with its last status report (a failure's reason, say); null: nothing. */
    statusMessage: p.text().nullable(),
    // Timestamps belong to the upstream service (they arrive by import), so no onCreate/onUpdate hooks.
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export type Revision = InferEntity<typeof RevisionSchema>;
