// The two ways to page through deployments: offset pages exactly as GET /v2/deployments defines them, and a
// Relay connection whose cursors survive inserts. Both use the same filter and order (newest first).
import type { FilterQuery } from '@mikro-orm/postgresql';
import type { GraphQLResolveInfo } from 'graphql';
import { builder } from '../../graphql/builder.ts';
import type { GraphQLContext } from '../../graphql/context.ts';
import {
  checkOffsetPage, connectionOf, connectionSlice, DEFAULT_PAGE_SIZE, EMPTY_CONNECTION, MAX_PAGE_SIZE, type ConnectionArgs,
} from '../../graphql/paging.ts';
import { countedConnection, offsetPageRef } from '../../graphql/page-types.ts';
import { selectionOf } from '../../graphql/selected-columns.ts';
import { listingCursors } from '../common/listing-position.ts';
import { DeploymentSchema, type Deployment } from './deployment.entity.ts';
import type { DeploymentReadModel } from './deployment-read-model.ts';
import { timestampFromText } from '../common/lean-rows.ts';
import { DeploymentFilterInput, resolveDeploymentFilter } from './deployment-filter.graphql.ts';
import { MATCHES_NOTHING } from './deployment-filter.ts';
import { DeploymentRef } from './deployment.graphql.ts';
import { READ_WITH_PAGE, readSecretsWithPage } from './secrets-with-page.ts';

export const deploymentCursors = listingCursors('deployment');

const DeploymentPageRef = offsetPageRef('DeploymentPage', DeploymentRef, {
  page: 'One page of the deployment list (the shape of GET /v2/deployments).',
  items: 'The deployments of this page, newest first.',
  total: 'Number of deployments matching the filter, over all pages',
});

builder.queryField('deployments', (t) =>
  t.field({
    type: DeploymentPageRef,
    description: 'Deployments of the tenant, newest first (created_at, then id, descending), in offset pages (REST: GET /v2/deployments).',
    args: {
      filter: t.arg({ type: DeploymentFilterInput, description: 'Only deployments matching every field given.' }),
      limit: t.arg.int({ required: true, defaultValue: DEFAULT_PAGE_SIZE, description: `Page size, 1 to ${MAX_PAGE_SIZE}.` }),
      offset: t.arg.int({ required: true, defaultValue: 0, description: 'Deployments to skip: 0, or the `offset` of the previous page.' }),
    },
    resolve: async (_root, { filter, limit, offset }, ctx, info) => {
      checkOffsetPage(limit, offset);
      const where = await resolveDeploymentFilter(filter, ctx);
      if (where === MATCHES_NOTHING) return { resources: [], offset, hasNextPage: false, countTotal: async () => 0 };
      const repository = ctx.em().getRepository(DeploymentSchema);
      // Only the columns the selected fields of `resources` read (all of them for REST's full record).
      const page = selectionOf(info, ['resources'], READ_WITH_PAGE);
      const { deployments, more } = await repository.findPage(where, limit, offset, page.columns);
      await readSecretsWithPage(page, deployments, () => ctx.loaders.deployments);
      return { resources: deployments, offset: offset + deployments.length, hasNextPage: more, countTotal: () => repository.countMatching(where) };
    },
  }));

builder.queryField('deploymentsConnection', (t) =>
  t.connection(
    {
      type: DeploymentRef,
      description: 'Deployments of the tenant, newest first, as a Relay connection: cursors stay valid while deployments are added.',
      args: { filter: t.arg({ type: DeploymentFilterInput, description: 'Only deployments matching every field given.' }) },
      resolve: async (_root, args, ctx, info) => {
        const where = await resolveDeploymentFilter(args.filter, ctx);
        return deploymentConnection(where, args, ctx, info);
      },
    },
    countedConnection('DeploymentConnection', 'A slice of the deployment list with cursors for its neighbours.', 'Number of deployments matching the filter, over all pages'),
    { name: 'DeploymentEdge', description: 'A deployment with its cursor.' },
  ));

async function deploymentConnection(
  where: FilterQuery<Deployment> | typeof MATCHES_NOTHING, args: ConnectionArgs, ctx: GraphQLContext, info: GraphQLResolveInfo,
) {
  const slice = connectionSlice(args, deploymentCursors.decode);
  if (where === MATCHES_NOTHING) return EMPTY_CONNECTION;
  const repository = ctx.em().getRepository(DeploymentSchema);
  const page = selectionOf(info, ['edges', 'node'], READ_WITH_PAGE);
  const { deployments, more } = await repository.findSlice(where, slice.range, slice.from, slice.count, page.columns);
  await readSecretsWithPage(page, deployments, () => ctx.loaders.deployments);
  // The far side of the slice is read only when a cursor bounds it there (otherwise the slice starts the list).
  const beyondFarSide = slice.farCursor ? await repository.existsFrom(where, slice.farCursor, slice.from === 'end' ? 'after' : 'before') : false;
  const cursorOf = (node: DeploymentReadModel) => deploymentCursors.encode({ createdAt: timestampFromText(node.created_at), id: node.id });
  return { ...connectionOf(deployments, cursorOf, slice, more, beyondFarSide), countTotal: () => repository.countMatching(where) };
}
