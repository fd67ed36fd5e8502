// Every read of revisions, as lean rows (see common/lean-rows.ts): by id, and the revisions of many
// deployments at once in the listing order (created_at desc, id desc). A page of deployments that each
// show a slice of their revisions costs one statement, whatever the number of deployments: the slice is
// cut per deployment by a window function.
import { raw, type FilterQuery } from '@mikro-orm/postgresql';
import { groupedByParent } from '../common/batch-results.ts';
import { timestampFromText } from '../common/lean-rows.ts';
import { TenantOwnedRepository } from '../common/tenant-owned.repository.ts';
import { RevisionSchema, type Revision } from './revision.entity.ts';
import type { RevisionReadModel } from './revision-read-model.ts';

/** Newest first (the listing order), or oldest first (a connection read from its end). */
export type RevisionOrder = 'listing' | 'reversed';

export interface RevisionSlice {
  order: RevisionOrder;
  /** Revisions of each deployment to pass over first. */
  skip: number;
  /** How many to read per deployment after those; undefined: all of them. */
  take?: number;
}

const withTimestamps = (row: RevisionReadModel): RevisionReadModel => {
  row.created_at = timestampFromText(row.created_at);
  row.updated_at = timestampFromText(row.updated_at);
  return row;
};

export class RevisionRepository extends TenantOwnedRepository<Revision> {
  /** One row per requested id, in the same order, or null where the tenant has no such revision. */
  async findRowsByIds(ids: readonly string[]): Promise<(RevisionReadModel | null)[]> {
    return (await this.rowsByIds<RevisionReadModel>(ids)).map((row) => row && withTimestamps(row));
  }

  /** The slice of each deployment's revisions that match `where`, one list per requested deployment id. */
  async findSlicesOf(deploymentIds: readonly string[], where: FilterQuery<Revision>, slice: RevisionSlice): Promise<RevisionReadModel[][]> {
    if (deploymentIds.length === 0) return [];
    const direction = slice.order === 'listing' ? 'desc' : 'asc';
    const qb = await this.ofDeployments(deploymentIds, where);
    qb.select([raw('r.*'), raw(`row_number() over (partition by r.deployment_id order by r.created_at ${direction}, r.id ${direction}) as position`)]);
    // The QueryBuilder writes the tenant-filtered, numbered rows; only the cut by position is written here,
    // because a window function's result can be compared only outside the query that computes it.
    const { sql, params } = qb.toQuery();
    const bounds = slice.take === undefined ? [slice.skip] : [slice.skip, slice.skip + slice.take];
    const rows = await this.tenantSafeEm.getConnection().execute<(RevisionReadModel & { position: string })[]>(
      `select * from (${sql}) as numbered where position > ?${slice.take === undefined ? '' : ' and position <= ?'} order by position`,
      [...params, ...bounds], 'all', this.tenantSafeEm.getTransactionContext(), { id: this.tenantSafeEm.id } as never,
    );
    const revisions = rows.map(({ position: _position, ...row }) => withTimestamps(row));
    return groupedByParent(deploymentIds, revisions, (row) => row.deployment_id);
  }

  /** How many revisions of each deployment match `where`. */
  async countOf(deploymentIds: readonly string[], where: FilterQuery<Revision>): Promise<number[]> {
    if (deploymentIds.length === 0) return [];
    const qb = await this.ofDeployments(deploymentIds, where);
    qb.select([raw('r.deployment_id'), raw('count(*)::int as count')]).groupBy(raw('r.deployment_id') as never);
    const rows = await qb.execute<{ deployment_id: string; count: number }[]>('all', false);
    const counts = new Map(rows.map((row) => [row.deployment_id, row.count]));
    return deploymentIds.map((id) => counts.get(id) ?? 0);
  }

  private async ofDeployments(deploymentIds: readonly string[], where: FilterQuery<Revision>) {
    const qb = await this.tenantSafeEm.filteredQueryBuilder(RevisionSchema, 'r');
    return qb.andWhere({ $and: [{ deployment: { $in: [...new Set(deploymentIds)] } }, where] } as never);
  }
}
