// A deployment's revisions: the latest and active one, one by id, and the list, newest first (created_at, then
// id, descending), in full, as an offset page (REST: GET /v2/deployments/{id}/revisions) or as a Relay
// connection. Every list loads in one statement for a whole page of deployments (see revision-loaders.ts).
import { builder } from '../../graphql/builder.ts';
import { uuidOfArgument } from '../../graphql/global-id.ts';
import {
  checkOffsetPage, connectionOf, connectionSlice, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE,
} from '../../graphql/paging.ts';
import { countedConnection, offsetPageRef } from '../../graphql/page-types.ts';
import { columnsOf } from '../../graphql/selected-columns.ts';
import { listedAtOrAfter, listedAtOrBefore, listingCursors, withinRange } from '../common/listing-position.ts';
import { DeploymentRef } from '../deployments/deployment.graphql.ts';
import type { Revision } from './revision.entity.ts';
import { RevisionFilterInput, RevisionRef } from './revision.graphql.ts';
import { revisionWhere } from './revision-filter.ts';
import type { RevisionReadModel } from './revision-read-model.ts';

export const revisionCursors = listingCursors('revision');
const cursorOf = (revision: RevisionReadModel) => revisionCursors.encode({ createdAt: revision.created_at, id: revision.id });

const RevisionPageRef = offsetPageRef('RevisionPage', RevisionRef, {
  page: 'One page of a deployment\'s revisions (the shape of GET /v2/deployments/{id}/revisions).',
  items: 'The revisions of this page, newest first.',
  total: 'Number of revisions matching the filter, over all pages',
});

const filterArgument = { description: 'Only revisions matching every field given.' };

builder.objectFields(DeploymentRef, (t) => ({
  latestRevision: t.field({
    type: RevisionRef, nullable: true,
    extensions: columnsOf('latest_revision_id'), description: 'The latest revision; null when the service has not reported its record.',
    resolve: (d, _args, ctx) => (d.latest_revision_id ? ctx.loaders.revisions.byId.load(d.latest_revision_id) : null),
  }),
  activeRevision: t.field({
    type: RevisionRef, nullable: true,
    extensions: columnsOf('active_revision_id'), description: 'The revision serving traffic; null when the service has not reported its record.',
    resolve: (d, _args, ctx) => (d.active_revision_id ? ctx.loaders.revisions.byId.load(d.active_revision_id) : null),
  }),
  revision: t.field({
    type: RevisionRef, nullable: true,
    extensions: columnsOf('id'),
    description: 'One revision of this deployment (REST: GET /v2/deployments/{id}/revisions/{revision_id}); null when the deployment has none of that id.',
    args: { id: t.arg.id({ required: true, description: 'The revision: its global id, or its raw UUID as REST clients know it.' }) },
    resolve: async (d, args, ctx) => {
      const id = uuidOfArgument(String(args.id), 'Revision', 'id');
      const revision = id ? await ctx.loaders.revisions.byId.load(id) : null;
      return revision?.deployment_id === d.id ? revision : null;
    },
  }),
  revisions: t.field({
    type: [RevisionRef],
    extensions: columnsOf('id'), description: 'Every known revision matching the filter, newest first.',
    args: { filter: t.arg({ type: RevisionFilterInput, ...filterArgument }) },
    resolve: (d, { filter }, ctx) => ctx.loaders.revisions.slice(revisionWhere(filter), { order: 'listing', skip: 0 }).load(d.id),
  }),
  revisionPage: t.field({
    type: RevisionPageRef,
    extensions: columnsOf('id'),
    description: 'The revisions, newest first (created_at, then id, descending), in offset pages (REST: GET /v2/deployments/{id}/revisions).',
    args: {
      filter: t.arg({ type: RevisionFilterInput, ...filterArgument }),
      limit: t.arg.int({ required: true, defaultValue: DEFAULT_PAGE_SIZE, description: `Page size, 1 to ${MAX_PAGE_SIZE}.` }),
      offset: t.arg.int({ required: true, defaultValue: 0, description: 'Revisions to skip: 0, or the `offset` of the previous page.' }),
    },
    resolve: async (d, { filter, limit, offset }, ctx) => {
      checkOffsetPage(limit, offset);
      const where = revisionWhere(filter);
      // One more than asked, to tell whether another page follows.
      const rows = await ctx.loaders.revisions.slice(where, { order: 'listing', skip: offset, take: limit + 1 }).load(d.id);
      const resources = rows.slice(0, limit);
      return { resources, offset: offset + resources.length, hasNextPage: rows.length > limit, countTotal: () => ctx.loaders.revisions.count(where).load(d.id) };
    },
  }),
  revisionsConnection: t.connection(
    {
      type: RevisionRef,
      extensions: columnsOf('id'),
      description: 'The revisions, newest first, as a Relay connection: cursors stay valid while revisions are added.',
      args: { filter: t.arg({ type: RevisionFilterInput, ...filterArgument }) },
      resolve: async (d, args, ctx) => {
        const slice = connectionSlice(args, revisionCursors.decode);
        const where = revisionWhere(args.filter);
        const fromEnd = slice.from === 'end';
        const rows = await ctx.loaders.revisions
          .slice(withinRange<Revision>(where, slice.range), { order: fromEnd ? 'reversed' : 'listing', skip: 0, take: slice.count + 1 })
          .load(d.id);
        const nodes = rows.slice(0, slice.count);
        if (fromEnd) nodes.reverse();
        // The far side of the slice is read only when a cursor bounds it there (otherwise the slice starts the list).
        const beyond = slice.farCursor && (fromEnd ? listedAtOrAfter<Revision>(slice.farCursor) : listedAtOrBefore<Revision>(slice.farCursor));
        const beyondFarSide = beyond ? (await ctx.loaders.revisions.count({ $and: [where, beyond] }).load(d.id)) > 0 : false;
        return { ...connectionOf(nodes, cursorOf, slice, rows.length > slice.count, beyondFarSide), countTotal: () => ctx.loaders.revisions.count(where).load(d.id) };
      },
    },
    countedConnection('RevisionConnection', 'A slice of a deployment\'s revisions with cursors for its neighbours.', 'Number of revisions matching the filter, over all pages'),
    { name: 'RevisionEdge', description: 'A revision with its cursor.' },
  ),
}));
