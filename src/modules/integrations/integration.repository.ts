import { alphabetical } from '../common/text-queries.ts';
import { TenantOwnedRepository } from '../common/tenant-owned.repository.ts';
import type { FilterQuery } from '@mikro-orm/postgresql';
import type { Integration, IntegrationKind } from './integration.entity.ts';

export interface IntegrationQuery {
  kind?: IntegrationKind | null;
  codehost?: string | null;
  installed?: boolean | null;
}

export class IntegrationRepository extends TenantOwnedRepository<Integration> {
  /** The integration of that kind in the current tenant, or null (another tenant's looks like a missing one). */
  findOfKind(id: string, kind: IntegrationKind): Promise<Integration | null> {
    return this.findOne({ id, kind });
  }

  /** The tenant's integrations, optionally of one kind, code host or installation state, by name (case-insensitive). */
  list({ kind, codehost, installed }: IntegrationQuery = {}): Promise<Integration[]> {
    const where: FilterQuery<Integration> = {
      ...(kind && { kind }),
      ...(codehost != null && { codehost }),
      ...(installed != null && { installationId: installed ? { $ne: null } : null }),
    };
    return this.find(where, { orderBy: [alphabetical('name'), { id: 'asc' }] });
  }
}
