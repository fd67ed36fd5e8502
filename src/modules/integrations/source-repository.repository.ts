import { alphabetical } from '../common/text-order.ts';
import { TenantOwnedRepository } from '../common/tenant-owned.repository.ts';
import type { SourceRepository } from './source-repository.entity.ts';

export class SourceRepositoryRepository extends TenantOwnedRepository<SourceRepository> {
  /**
   * The repositories of many integrations in one query, in the listing order of contract.md: owner, then
   * name (both case-insensitive), then the code host's id.
   */
  async findByIntegrations(integrationIds: readonly string[]): Promise<SourceRepository[][]> {
    if (integrationIds.length === 0) return [];
    const found = await this.find({ integration: { $in: [...new Set(integrationIds)] } }, {
      orderBy: [alphabetical('owner'), alphabetical('name'), { codeHostId: 'asc' }],
    });
    const groups = new Map<string, SourceRepository[]>(integrationIds.map((id) => [id, []]));
    for (const repository of found) groups.get(repository.integration.id)?.push(repository);
    return integrationIds.map((id) => groups.get(id)!);
  }
}
