import { TenantOwnedRepository } from '../common/tenant-owned.repository.ts';
import { alphabetical } from '../common/text-queries.ts';
import type { SourceRepository } from './source-repository.entity.ts';

export class SourceRepositoryRepository extends TenantOwnedRepository<SourceRepository> {
  /**
   * The repositories of many integrations in one query, in the listing order of docs/decisions.md#ordering:
   * owner, then name (both case-insensitive), then the code host's id.
   */
  findByIntegrations(integrationIds: readonly string[]): Promise<SourceRepository[][]> {
    return this.findGroupedBy('integration', integrationIds, [alphabetical('owner'), alphabetical('name'), { codeHostId: 'asc' }]);
  }
}
