// Every read of the deployment list: offset pages (GET /v2/deployments, `deployments`), keyset slices
// (`deploymentsConnection`) and counts, all in the listing order created_at desc, id desc. Pages are read
// as lean rows (see lean-rows.ts).
import type { FilterQuery, QueryOrderMap } from '@mikro-orm/postgresql';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';
import { inRequestedOrder } from '../common/batch-results.ts';
import { leanRows, timestampFromText } from '../common/lean-rows.ts';
import { TenantOwnedRepository } from '../common/tenant-owned.repository.ts';
import type { Deployment } from './deployment.entity.ts';
import { DeploymentSchema } from './deployment.entity.ts';
import {
  listedAfter, listedAtOrAfter, listedAtOrBefore, listedBefore, type DeploymentPosition,
} from './deployment-cursor.ts';
import type { DeploymentRow } from './deployment-row.ts';

const LISTING_ORDER: QueryOrderMap<Deployment>[] = [{ createdAt: 'desc' }, { id: 'desc' }];
const REVERSED_ORDER: QueryOrderMap<Deployment>[] = [{ createdAt: 'asc' }, { id: 'asc' }];

export interface DeploymentSlice {
  deployments: DeploymentRow[];
  /** Whether the list goes on beyond the slice in the direction it was read. */
  more: boolean;
}

export interface KeysetRange {
  after?: DeploymentPosition;
  before?: DeploymentPosition;
}

export class DeploymentRepository extends TenantOwnedRepository<Deployment> {
  private get tenantSafeEm(): TenantSafeEntityManager {
    return this.getEntityManager() as TenantSafeEntityManager;
  }

  private async rows(where: FilterQuery<Deployment>, options: { orderBy?: QueryOrderMap<Deployment>[]; limit?: number; offset?: number }) {
    const rows = await leanRows<DeploymentRow>(this.tenantSafeEm, DeploymentSchema, where, options as never);
    for (const row of rows) {
      row.created_at = timestampFromText(row.created_at);
      row.updated_at = timestampFromText(row.updated_at);
    }
    return rows;
  }

  /** One row per requested id, in the same order, or null where the tenant has no such deployment. */
  async findRowsByIds(ids: readonly string[]): Promise<(DeploymentRow | null)[]> {
    if (ids.length === 0) return [];
    return inRequestedOrder(ids, await this.rows({ id: { $in: [...new Set(ids)] } }, {}), (row) => row.id);
  }

  /** `limit` deployments from `offset`; one extra row is read to tell whether another page follows. */
  async findPage(where: FilterQuery<Deployment>, limit: number, offset: number): Promise<DeploymentSlice> {
    const rows = await this.rows(where, { orderBy: LISTING_ORDER, limit: limit + 1, offset });
    return { deployments: rows.slice(0, limit), more: rows.length > limit };
  }

  /**
   * The first (`from: 'start'`) or last (`from: 'end'`) `count` deployments strictly between the range's
   * positions, in listing order.
   */
  async findSlice(where: FilterQuery<Deployment>, range: KeysetRange, from: 'start' | 'end', count: number): Promise<DeploymentSlice> {
    const rows = await this.rows(this.within(where, range), { orderBy: from === 'start' ? LISTING_ORDER : REVERSED_ORDER, limit: count + 1 });
    const deployments = rows.slice(0, count);
    return { deployments: from === 'start' ? deployments : deployments.reverse(), more: rows.length > count };
  }

  /**
   * Whether a deployment matching `where` is listed at `position` or on the given side of it: the far side of
   * a slice read from a cursor (the cursor's own deployment counts, it is not on the slice).
   */
  async existsFrom(where: FilterQuery<Deployment>, position: DeploymentPosition, side: 'before' | 'after'): Promise<boolean> {
    const beyond = side === 'before' ? listedAtOrBefore(position) : listedAtOrAfter(position);
    const found = await leanRows(this.tenantSafeEm, DeploymentSchema, { $and: [where, beyond] }, { fields: ['id'], limit: 1 });
    return found.length > 0;
  }

  countMatching(where: FilterQuery<Deployment>): Promise<number> {
    return this.count(where);
  }

  private within(where: FilterQuery<Deployment>, { after, before }: KeysetRange): FilterQuery<Deployment> {
    const and = [where];
    if (after) and.push(listedAfter(after));
    if (before) and.push(listedBefore(before));
    return and.length === 1 ? where : { $and: and };
  }
}
