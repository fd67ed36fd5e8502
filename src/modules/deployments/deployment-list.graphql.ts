// The two ways to page through deployments: offset pages exactly as GET /v2/deployments defines them, and a
// Relay connection whose cursors survive inserts. Both use the same filter and order (newest first).
import type { FilterQuery } from '@mikro-orm/postgresql';
import { builder } from '../../graphql/builder.ts';
import type { GraphQLContext } from '../../graphql/context.ts';
import { badUserInput } from '../../graphql/errors.ts';
import { selectedColumns } from '../../graphql/selected-columns.ts';
import { DeploymentSchema, type Deployment } from './deployment.entity.ts';
import type { DeploymentRow } from './deployment-row.ts';
import { decodeDeploymentCursor, encodeDeploymentCursor, type DeploymentPosition } from './deployment-cursor.ts';
import { DeploymentFilterInput, resolveDeploymentFilter } from './deployment-filter.graphql.ts';
import { MATCHES_NOTHING } from './deployment-filter.ts';
import { DeploymentRef } from './deployment.graphql.ts';
import type { KeysetRange } from './deployment.repository.ts';

export const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 20;

interface DeploymentPage {
  resources: DeploymentRow[];
  offset: number;
  hasNextPage: boolean;
  /** Counted only when the field is selected. */
  countTotal: () => Promise<number>;
}

const DeploymentPageRef = builder.objectRef<DeploymentPage>('DeploymentPage').implement({
  description: 'One page of the deployment list (the shape of GET /v2/deployments).',
  fields: (t) => ({
    resources: t.expose('resources', { type: [DeploymentRef], description: 'The deployments of this page, newest first.' }),
    offset: t.exposeInt('offset', {
      description: 'Offset of the next page: the request offset plus the number returned (echoed past the end).',
    }),
    hasNextPage: t.exposeBoolean('hasNextPage', { description: 'Whether another page follows; a page shorter than the limit is always the last.' }),
    totalCount: t.int({
      description: 'Number of deployments matching the filter, over all pages (counted only when selected).',
      resolve: (page) => page.countTotal(),
    }),
  }),
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
      if (limit < 1 || limit > MAX_PAGE_SIZE) throw badUserInput('limit', `must be between 1 and ${MAX_PAGE_SIZE}; got ${limit}`);
      if (offset < 0) throw badUserInput('offset', `must be 0 or more; got ${offset}`);
      const where = await resolveDeploymentFilter(filter, ctx);
      if (where === MATCHES_NOTHING) return { resources: [], offset, hasNextPage: false, countTotal: async () => 0 };
      const repository = ctx.em.getRepository(DeploymentSchema);
      // Only the columns the selected fields of `resources` read (all of them for REST's full record).
      const { deployments, more } = await repository.findPage(where, limit, offset, selectedColumns(info, ['resources']));
      return { resources: deployments, offset: offset + deployments.length, hasNextPage: more, countTotal: () => repository.countMatching(where) };
    },
  }));

interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

builder.queryField('deploymentsConnection', (t) =>
  t.connection(
    {
      type: DeploymentRef,
      description: 'Deployments of the tenant, newest first, as a Relay connection: cursors stay valid while deployments are added.',
      args: { filter: t.arg({ type: DeploymentFilterInput, description: 'Only deployments matching every field given.' }) },
      resolve: async (_root, args, ctx, info) => {
        const where = await resolveDeploymentFilter(args.filter, ctx);
        return deploymentConnection(where, args, ctx, selectedColumns(info, ['edges', 'node']));
      },
    },
    {
      name: 'DeploymentConnection',
      description: 'A slice of the deployment list with cursors for its neighbours.',
      fields: (c) => ({
        totalCount: c.int({
          description: 'Number of deployments matching the filter, over all pages (counted only when selected).',
          resolve: (connection) => (connection as unknown as { countTotal: () => Promise<number> }).countTotal(),
        }),
      }),
    },
    { name: 'DeploymentEdge', description: 'A deployment with its cursor.' },
  ));

async function deploymentConnection(
  where: FilterQuery<Deployment> | typeof MATCHES_NOTHING, args: ConnectionArgs, ctx: GraphQLContext, columns: string[] | undefined,
) {
  const { first, last } = args;
  if (first != null && last != null) throw badUserInput('last', 'give either first or last, not both');
  for (const [name, value] of [['first', first], ['last', last]] as const) {
    if (value != null && (value < 1 || value > MAX_PAGE_SIZE)) throw badUserInput(name, `must be between 1 and ${MAX_PAGE_SIZE}; got ${value}`);
  }
  const range: KeysetRange = { after: cursorArgument(args.after, 'after'), before: cursorArgument(args.before, 'before') };
  if (where === MATCHES_NOTHING) {
    return { edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null }, countTotal: async () => 0 };
  }
  const repository = ctx.em.getRepository(DeploymentSchema);
  const fromEnd = last != null;
  const { deployments, more } = await repository.findSlice(where, range, fromEnd ? 'end' : 'start', last ?? first ?? DEFAULT_PAGE_SIZE, columns);
  // The far side of the slice is read only when a cursor bounds it there (otherwise the slice starts the list).
  const farCursor = fromEnd ? range.before : range.after;
  const beyondFarSide = farCursor ? await repository.existsFrom(where, farCursor, fromEnd ? 'after' : 'before') : false;
  const edges = deployments.map((node) => ({ cursor: encodeDeploymentCursor({ createdAt: node.created_at, id: node.id }), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage: fromEnd ? beyondFarSide : more,
      hasPreviousPage: fromEnd ? more : beyondFarSide,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    countTotal: () => repository.countMatching(where),
  };
}

function cursorArgument(cursor: string | null | undefined, argument: 'after' | 'before'): DeploymentPosition | undefined {
  if (cursor == null || cursor === '') return undefined;
  const position = decodeDeploymentCursor(cursor);
  if (!position) throw badUserInput(argument, 'is not a cursor of this list');
  return position;
}
