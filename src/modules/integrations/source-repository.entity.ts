import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../common/base.entity.ts';
import { createdAt, updatedAt } from '../common/columns.ts';
import { IntegrationSchema } from './integration.entity.ts';
import { SourceRepositoryRepository } from './source-repository.repository.ts';

// A repository reachable through an integration. `codeHostId` is the host's own integer id (the `id` of the
// legacy record); bigint because large hosts have passed 2^31 repositories.
export const SourceRepositorySchema = defineEntity({
  name: 'SourceRepository',
  repository: () => SourceRepositoryRepository,
  extends: TenantOwnedSchema,
  uniques: [{ properties: ['integration', 'codeHostId'] }],
  properties: {
    integration: () => p.manyToOne(IntegrationSchema).ref(),
    codeHostId: p.bigint('number'),
    name: p.text(),
    owner: p.text(),
    url: p.text(),
    defaultBranch: p.text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});

export type SourceRepository = InferEntity<typeof SourceRepositorySchema>;
