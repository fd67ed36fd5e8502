// Every read of tags, as lean rows (see tag-read-model.ts): keys and values by id, the tenant's keys, the
// values of many keys, and the values of many deployments, each in one statement.
import { groupedByParent } from '../common/batch-results.ts';
import { leanRows } from '../common/lean-rows.ts';
import { alphabetical, compareAlphabetically } from '../common/text-queries.ts';
import { TenantOwnedRepository } from '../common/tenant-owned.repository.ts';
import { DeploymentSchema } from './deployment.entity.ts';
import { TagValueSchema, type TagKey, type TagValue } from './tag.entity.ts';
import type { TagKeyReadModel, TagValueReadModel } from './tag-read-model.ts';

/** A row of the join of deployments and their tag values: the pivot's deployment beside the value's columns. */
type DeploymentTagValueRow = TagValueReadModel & { deployment_id: string };

const KEY_FIELDS = ['id', 'key'];
const VALUE_FIELDS = ['id', 'tagKey', 'value'];

export class TagKeyRepository extends TenantOwnedRepository<TagKey> {
  findRowsByIds(ids: readonly string[]): Promise<(TagKeyReadModel | null)[]> {
    return this.rowsByIds<TagKeyReadModel>(ids, KEY_FIELDS);
  }

  /** Every tag key of the tenant, alphabetically (case-insensitive), then by id. */
  listRows(): Promise<TagKeyReadModel[]> {
    return leanRows<TagKeyReadModel>(this.tenantSafeEm, this.entityName, {}, { fields: KEY_FIELDS, orderBy: [alphabetical('key'), { id: 'asc' }] });
  }
}

const byValueThenId = (a: TagValueReadModel, b: TagValueReadModel) => compareAlphabetically(a.value, b.value) || (a.id < b.id ? -1 : 1);

export class TagValueRepository extends TenantOwnedRepository<TagValue> {
  findRowsByIds(ids: readonly string[]): Promise<(TagValueReadModel | null)[]> {
    return this.rowsByIds<TagValueReadModel>(ids, VALUE_FIELDS);
  }

  /** The values of many tag keys, alphabetically (case-insensitive), then by id; one list per requested key. */
  valuesOfKeys(keyIds: readonly string[]): Promise<TagValueReadModel[][]> {
    return this.rowsGroupedBy<TagValueReadModel>({ property: 'tagKey', column: 'tag_key_id' }, keyIds, [alphabetical('value'), { id: 'asc' }], VALUE_FIELDS);
  }

  /**
   * The values labelling many deployments, by value (case-insensitive), then id; one list per requested
   * deployment. Read through the deployments' pivot table, the deployments and the values both within the
   * tenant (filteredQueryBuilder and filteredJoin).
   */
  async valuesOfDeployments(deploymentIds: readonly string[]): Promise<TagValueReadModel[][]> {
    if (deploymentIds.length === 0) return [];
    const rows = await leanRows<DeploymentTagValueRow>(this.tenantSafeEm, DeploymentSchema, { id: { $in: [...new Set(deploymentIds)] } }, {
      joins: [{ field: 'e.tagValues', alias: 'v', entity: TagValueSchema }],
      fields: ['e.id as deployment_id', ...VALUE_FIELDS.map((field) => `v.${field}`)],
    });
    return groupedByParent(deploymentIds, rows, (row) => row.deployment_id).map((values) =>
      values.map(({ deployment_id: _deployment, ...value }) => value).sort(byValueThenId));
  }
}
