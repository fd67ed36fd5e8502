import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../common/base.entity.ts';
import { DeploymentSchema } from './deployment.entity.ts';
import { REVISION_STATUSES, type RevisionStatus } from './deployment-enums.ts';

export const RevisionSchema = defineEntity({
  name: 'Revision',
  extends: TenantOwnedSchema,
  properties: {
    deployment: () => p.manyToOne(DeploymentSchema).ref().index(),
    status: p.enum([...REVISION_STATUSES]).$type<RevisionStatus>(),
    createdAt: p.datetime(),
  },
});

export type Revision = InferEntity<typeof RevisionSchema>;
