// Every read of listeners, as lean rows (listener-read-model.ts), in the tenant of the request's EntityManager.
import type { QueryOrderMap } from '@mikro-orm/postgresql';
import { leanRows } from '../common/lean-rows.ts';
import { TenantOwnedRepository } from '../common/tenant-owned.repository.ts';
import type { Listener } from './listener.entity.ts';
import { listenerFromRow, type ListenerReadModel } from './listener-read-model.ts';

/** Newest first, as the deployment list (docs/decisions.md#listeners). */
const LISTING_ORDER: QueryOrderMap<Listener>[] = [{ createdAt: 'desc' }, { id: 'desc' }];

export class ListenerRepository extends TenantOwnedRepository<Listener> {
  /** One row per requested id, in the same order, or null (another tenant's looks like a missing one). */
  async findRowsByIds(ids: readonly string[]): Promise<(ListenerReadModel | null)[]> {
    return (await this.rowsByIds<Record<string, unknown> & { id: string }>(ids)).map((row) => row && listenerFromRow(row));
  }

  /** `limit` listeners from `offset` in the listing order. */
  async findPage(limit: number, offset: number): Promise<ListenerReadModel[]> {
    const rows = await leanRows<Record<string, unknown>>(this.tenantSafeEm, this.entityName, {}, { orderBy: LISTING_ORDER, limit, offset });
    return rows.map(listenerFromRow);
  }
}
