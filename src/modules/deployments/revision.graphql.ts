import { builder } from '../../graphql/builder.ts';
import { loadNodes } from '../../graphql/loaders.ts';
import { RevisionStatusEnum } from './deployment-enums.graphql.ts';
import type { Revision } from './revision.entity.ts';
import { DeploymentRef } from './deployment.graphql.ts';

// Declared before it is implemented, so types that point at each other need no inference cycle.
export const RevisionRef = builder.objectRef<Revision>('Revision');

builder.node(RevisionRef, {
  description: 'One build-and-rollout of a deployment.',
  id: { resolve: (revision) => revision.id },
  loadMany: (ids, ctx) => loadNodes(ctx.loaders.revision, ids),
  fields: (t) => ({
    uuid: t.field({ type: 'UUID', description: 'Raw id of the revision (`latest_revision_id` / `active_revision_id` in REST).', resolve: (r) => r.id }),
    status: t.expose('status', { type: RevisionStatusEnum, description: 'Progress of the revision.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the revision was created.' }),
    deployment: t.field({
      type: DeploymentRef,
      description: 'The deployment this revision belongs to.',
      resolve: async (revision, _args, ctx) => (await ctx.loaders.deployment.load(revision.deployment.id))!,
    }),
  }),
});
