import { EntityRepository } from '@mikro-orm/postgresql';
import type { Integration, IntegrationKind } from './integration.entity.ts';

export class IntegrationRepository extends EntityRepository<Integration> {
  /** The integration of that kind in the current tenant, or null (another tenant's looks like a missing one). */
  findOfKind(id: string, kind: IntegrationKind): Promise<Integration | null> {
    return this.findOne({ id, kind });
  }
}
