// Every read of the deployment list: offset pages (GET /v2/deployments, `deployments`), keyset slices
// (`deploymentsConnection`) and counts, all in the listing order created_at desc, id desc. Pages are read
// as lean rows (see lean-rows.ts).
import { raw, type FilterQuery, type QueryOrderMap, type RawQueryFragment } from '@mikro-orm/postgresql';
import { inRequestedOrder } from '../common/batch-results.ts';
import { leanRows } from '../common/lean-rows.ts';
import type { SelectedColumns } from '../common/selection.ts';
import { TenantOwnedRepository } from '../common/tenant-owned.repository.ts';
import type { Deployment } from './deployment.entity.ts';
import { DeploymentSchema } from './deployment.entity.ts';
import {
  listedAtOrAfter, listedAtOrBefore, withinRange, type KeysetRange, type ListingPosition,
} from '../common/listing-position.ts';
import type { DeploymentReadModel } from './deployment-read-model.ts';

const LISTING_ORDER: QueryOrderMap<Deployment>[] = [{ createdAt: 'desc' }, { id: 'desc' }];
const REVERSED_ORDER: QueryOrderMap<Deployment>[] = [{ createdAt: 'asc' }, { id: 'asc' }];

/**
 * The columns of a deployment row (as the lean rows name them), by the entity property that maps each. A
 * listing reads only those its caller asks for (see common/selection.ts); none asked: all of them.
 */
const PROPERTY_OF_COLUMN = {
  id: 'id', tenant_id: 'tenant', name: 'name', status: 'status', source: 'source', deployment_type: 'deploymentType',
  remote_reconciled: 'remoteReconciled', image_version: 'imageVersion', source_config: 'sourceConfig', resource_spec: 'resourceSpec',
  source_revision_config: 'sourceRevisionConfig', latest_revision_id: 'latestRevisionId', active_revision_id: 'activeRevisionId',
  created_at: 'createdAt', updated_at: 'updatedAt', version: 'version',
} as const;
export type DeploymentColumn = keyof typeof PROPERTY_OF_COLUMN;
/** What every listing reads whatever is asked: the id, and the position in the listing order (cursors). */
const ALWAYS_READ: DeploymentColumn[] = ['id', 'created_at'];

/** JSON object keys written into SQL (`keyOf` declarations are ours; this keeps them to plain names). */
const PLAIN_KEY = /^[a-z][a-z0-9_]*$/;
/** Beyond this many keys of a jsonb column, the whole column is read instead. */
const MAX_KEYS_BUILT = 12;
/** jsonb columns whose GraphQL fields declare the keys they read (resource-spec.graphql.ts; `Deployment.integration`). */
const KEYED_COLUMNS = new Set<DeploymentColumn>(['resource_spec', 'source_config']);

/**
 * What a listing selects for the given columns: entity properties, and for a jsonb column asked for as some of
 * its keys only (`column.key`, see common/selection.ts), an object with just those keys, built by
 * PostgreSQL, or null where the column is (a missing key and a null one read the same: null).
 */
function selectionFor(columns: SelectedColumns): (string | RawQueryFragment)[] | undefined {
  if (!columns) return undefined;
  const properties = new Set<string>(ALWAYS_READ.map((column) => PROPERTY_OF_COLUMN[column]));
  const keysOf = new Map<DeploymentColumn, Set<string>>();
  for (const entry of columns) {
    const [column, key, ...deeper] = entry.split('.') as [DeploymentColumn, string | undefined];
    if (!Object.hasOwn(PROPERTY_OF_COLUMN, column) || deeper.length > 0) throw new Error(`deployment has no column "${entry}"`);
    const property = PROPERTY_OF_COLUMN[column];
    if (key === undefined) properties.add(property);
    else if (!KEYED_COLUMNS.has(column) || (key !== '' && !PLAIN_KEY.test(key))) throw new Error(`deployment column "${entry}" cannot be read by key`);
    else {
      if (!keysOf.has(column)) keysOf.set(column, new Set());
      if (key !== '') keysOf.get(column)!.add(key);
    }
  }
  const partial: RawQueryFragment[] = [];
  for (const [column, keys] of keysOf) {
    // The whole column is read anyway; or so many keys are asked for (a full record) that building the object
    // would cost PostgreSQL more than sending the column.
    if (properties.has(PROPERTY_OF_COLUMN[column]) || keys.size > MAX_KEYS_BUILT) {
      properties.add(PROPERTY_OF_COLUMN[column]);
      continue;
    }
    const pairs = [...keys].sort().map((key) => `'${key}', e.${column}->'${key}'`).join(', ');
    partial.push(raw(`case when e.${column} is null then null else jsonb_build_object(${pairs}) end as ${column}`));
  }
  return [...properties, ...partial];
}

export interface DeploymentSlice {
  deployments: DeploymentReadModel[];
  /** Whether the list goes on beyond the slice in the direction it was read. */
  more: boolean;
}

export class DeploymentRepository extends TenantOwnedRepository<Deployment> {
  /** Rows with the given columns only (`columns` undefined: every column). */
  private async rows(
    where: FilterQuery<Deployment>,
    options: { orderBy?: QueryOrderMap<Deployment>[]; limit?: number; offset?: number; columns?: SelectedColumns },
  ) {
    const { columns, ...query } = options;
    // The timestamps stay text until a field reads them (deployment-read-model.ts).
    return leanRows<DeploymentReadModel>(this.tenantSafeEm, DeploymentSchema, where, { ...query, fields: selectionFor(columns) } as never);
  }

  /** One row per requested id, in the same order, or null where the tenant has no such deployment. */
  async findRowsByIds(ids: readonly string[]): Promise<(DeploymentReadModel | null)[]> {
    if (ids.length === 0) return [];
    return inRequestedOrder(ids, await this.rows({ id: { $in: [...new Set(ids)] } }, {}), (row) => row.id);
  }

  /**
   * Those of `ids` that match `where` (as a listing with that filter would show them), with only `columns`
   * read, as for `findPage`: a subscription checks the deployments that changed against its filter.
   */
  findMatchingRows(where: FilterQuery<Deployment>, ids: readonly string[], columns?: SelectedColumns): Promise<DeploymentReadModel[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.rows({ $and: [where, { id: { $in: [...new Set(ids)] } }] }, { columns });
  }

  /**
   * `limit` deployments from `offset`; one extra row is read to tell whether another page follows. Only
   * `columns` are read (and the id and creation time); the other properties of the rows are absent.
   */
  async findPage(where: FilterQuery<Deployment>, limit: number, offset: number, columns?: SelectedColumns): Promise<DeploymentSlice> {
    const rows = await this.rows(where, { orderBy: LISTING_ORDER, limit: limit + 1, offset, columns });
    return { deployments: rows.slice(0, limit), more: rows.length > limit };
  }

  /**
   * The first (`from: 'start'`) or last (`from: 'end'`) `count` deployments strictly between the range's
   * positions, in listing order; only `columns` are read, as for `findPage`.
   */
  async findSlice(
    where: FilterQuery<Deployment>, range: KeysetRange, from: 'start' | 'end', count: number, columns?: SelectedColumns,
  ): Promise<DeploymentSlice> {
    const rows = await this.rows(withinRange(where, range), { orderBy: from === 'start' ? LISTING_ORDER : REVERSED_ORDER, limit: count + 1, columns });
    const deployments = rows.slice(0, count);
    return { deployments: from === 'start' ? deployments : deployments.reverse(), more: rows.length > count };
  }

  /**
   * Whether a deployment matching `where` is listed at `position` or on the given side of it: the far side of
   * a slice read from a cursor (the cursor's own deployment counts, it is not on the slice).
   */
  async existsFrom(where: FilterQuery<Deployment>, position: ListingPosition, side: 'before' | 'after'): Promise<boolean> {
    const beyond = side === 'before' ? listedAtOrBefore<Deployment>(position) : listedAtOrAfter<Deployment>(position);
    const found = await leanRows(this.tenantSafeEm, DeploymentSchema, { $and: [where, beyond] }, { fields: ['id'], limit: 1 });
    return found.length > 0;
  }

  countMatching(where: FilterQuery<Deployment>): Promise<number> {
    return this.count(where);
  }
}
