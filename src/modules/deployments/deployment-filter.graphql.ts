// The `filter` argument of both deployment lists, and its translation into an ORM condition.
import type { FilterQuery } from '@mikro-orm/postgresql';
import { builder } from '../../graphql/builder.ts';
import type { GraphQLContext } from '../../graphql/context.ts';
import { badUserInput } from '../../graphql/errors.ts';
import { uuidOfArgument } from '../../graphql/global-id.ts';
import type { Deployment } from './deployment.entity.ts';
import { DeploymentStatusEnum, DeploymentTypeEnum } from './deployment-enums.graphql.ts';
import { deploymentWhere, MATCHES_NOTHING, type DeploymentFilter, type TagValueGroups } from './deployment-filter.ts';

export const MAX_FILTER_IDS = 100;

export const DeploymentFilterInput = builder.inputType('DeploymentFilter', {
  description: 'Narrows a deployment list; every field given must match (AND). An empty string or list is the same as leaving the field out.',
  fields: (t) => ({
    nameContains: t.string({ description: 'Case-insensitive substring of the name; `%`, `_` and `\\` match literally.' }),
    statuses: t.field({ type: [DeploymentStatusEnum], description: 'Any of these statuses.' }),
    remoteReconciled: t.boolean({ description: 'Only deployments that are (true) or are not (false) reconciled with the remote.' }),
    tagValueIds: t.idList({
      description: `Tag values (global ids or raw UUIDs, at most ${MAX_FILTER_IDS}). Values of one tag key are alternatives; every key given must match.`,
    }),
    imageVersion: t.string({ description: 'Exact image version.' }),
    deploymentType: t.field({ type: DeploymentTypeEnum, description: 'Service tier.' }),
    ids: t.idList({ description: `Only these deployments (global ids or raw UUIDs, at most ${MAX_FILTER_IDS}).` }),
  }),
});

type FilterArgument = typeof DeploymentFilterInput.$inferInput;

/** The ORM condition for the `filter` argument, or MATCHES_NOTHING; bad values are BAD_USER_INPUT errors. */
export async function resolveDeploymentFilter(
  input: FilterArgument | null | undefined, ctx: GraphQLContext,
): Promise<FilterQuery<Deployment> | typeof MATCHES_NOTHING> {
  if (!input) return {};
  const filter: DeploymentFilter = {
    nameContains: plainText(input.nameContains, 'filter.nameContains'),
    statuses: input.statuses,
    remoteReconciled: input.remoteReconciled,
    imageVersion: plainText(input.imageVersion, 'filter.imageVersion'),
    deploymentType: input.deploymentType,
  };
  const ids = idsOf(input.ids, 'Deployment', 'filter.ids');
  if (ids === MATCHES_NOTHING) return MATCHES_NOTHING;
  filter.ids = ids;
  const tagValueIds = idsOf(input.tagValueIds, 'TagValue', 'filter.tagValueIds');
  if (tagValueIds === MATCHES_NOTHING) return MATCHES_NOTHING;
  return deploymentWhere(filter, tagValueIds ? await groupByTagKey(tagValueIds, ctx) : undefined);
}

/**
 * The raw deployment ids the filter names (undefined: it names none, so any deployment may match), or
 * MATCHES_NOTHING: what a subscription still knows of a deleted deployment is its id.
 */
export function deploymentIdsOfFilter(input: FilterArgument | null | undefined): string[] | undefined | typeof MATCHES_NOTHING {
  return idsOf(input?.ids, 'Deployment', 'filter.ids');
}

// PostgreSQL text cannot hold NUL, so such a value could never match: say so instead of failing in the driver.
function plainText(value: string | null | undefined, argument: string): string | null | undefined {
  if (value?.includes('\u0000')) throw badUserInput(argument, 'must not contain NUL characters');
  return value;
}

/** Raw UUIDs of an id list; MATCHES_NOTHING when every id names another type's object. */
function idsOf(values: readonly (string | number)[] | null | undefined, typename: string, argument: string): string[] | undefined | typeof MATCHES_NOTHING {
  if (!values?.length) return undefined;
  if (values.length > MAX_FILTER_IDS) throw badUserInput(argument, `at most ${MAX_FILTER_IDS} ids; got ${values.length}`);
  const ids = values.map((value) => uuidOfArgument(String(value), typename, argument)).filter((id) => id !== null);
  return ids.length > 0 ? ids : MATCHES_NOTHING;
}

async function groupByTagKey(tagValueIds: string[], ctx: GraphQLContext): Promise<TagValueGroups> {
  const values = await ctx.loaders.tags.valueById.loadMany(tagValueIds);
  const byKey = new Map<string, string[]>();
  const unknown: string[] = [];
  values.forEach((value, index) => {
    if (!value || value instanceof Error) return unknown.push(tagValueIds[index]!);
    const key = value.tag_key_id;
    byKey.set(key, [...(byKey.get(key) ?? []), value.id]);
  });
  return { byKey: [...byKey.values()], unknown };
}
