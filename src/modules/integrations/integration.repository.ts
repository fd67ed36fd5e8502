import { alphabetical } from '../common/text-queries.ts';
import { TenantOwnedRepository } from '../common/tenant-owned.repository.ts';
import type { Integration, IntegrationKind } from './integration.entity.ts';

export class IntegrationRepository extends TenantOwnedRepository<Integration> {
  /** The integration of that kind in the current tenant, or null (another tenant's looks like a missing one). */
  findOfKind(id: string, kind: IntegrationKind): Promise<Integration | null> {
    return this.findOne({ id, kind });
  }

  /** The tenant's integrations, optionally of one kind, by name (case-insensitive). */
  list(kind?: IntegrationKind | null): Promise<Integration[]> {
    return this.find(kind ? { kind } : {}, { orderBy: [alphabetical('name'), { id: 'asc' }] });
  }
}
