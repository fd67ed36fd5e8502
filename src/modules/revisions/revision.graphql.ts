// The Revision node (REST: the original's Revision record) and the filter of a deployment's revision lists.
import { builder } from '../../graphql/builder.ts';
import { loadNodes } from '../../graphql/loaders.ts';
import { DeploymentSourceEnum, RevisionStatusEnum } from '../deployments/deployment-enums.graphql.ts';
import { DeploymentRef } from '../deployments/deployment.graphql.ts';
import { SourceRevisionConfigRef, SourceRevisionConfigView } from '../deployments/source-config.graphql.ts';
import type { RevisionReadModel } from './revision-read-model.ts';

// Declared before it is implemented, so types that point at each other need no inference cycle.
export const RevisionRef = builder.objectRef<RevisionReadModel>('Revision');

builder.node(RevisionRef, {
  description: 'One build-and-rollout of a deployment.',
  id: { resolve: (revision) => revision.id },
  loadMany: (ids, ctx) => loadNodes(ctx.loaders.revisions.byId, ids),
  fields: (t) => ({
    uuid: t.field({ type: 'UUID', description: 'Raw id of the revision (`id` in REST revision records, `latest_revision_id` / `active_revision_id` in deployment records).', resolve: (r) => r.id }),
    status: t.expose('status', { type: RevisionStatusEnum, description: 'Progress of the revision.' }),
    source: t.expose('source', { type: DeploymentSourceEnum, description: 'Where the code of this revision comes from.' }),
    sourceRevisionConfig: t.field({
      type: SourceRevisionConfigRef,
      description: 'Which revision of the source this revision deploys; every field null when the service has not reported it.',
      // Never null, as in the original's record: an unreported config is an object of unknown (null) values.
      resolve: (r) => new SourceRevisionConfigView(r.source_revision_config ?? {}),
    }),
    remoteReconciled: t.exposeBoolean('remote_reconciled', {
      description: 'Whether the revision came from reconciling with the remote (the code host), as the deployment\'s flag of the same name; the REST filter `remote_reconciled`.',
    }),
    createdAt: t.expose('created_at', { type: 'DateTime', description: 'When the revision was created; lists are ordered by it, newest first.' }),
    updatedAt: t.expose('updated_at', { type: 'DateTime', description: 'When the revision last changed.' }),
    deployment: t.field({
      type: DeploymentRef,
      description: 'The deployment this revision belongs to.',
      resolve: async (revision, _args, ctx) => (await ctx.loaders.deployments.byId.load(revision.deployment_id))!,
    }),
  }),
});

export const RevisionFilterInput = builder.inputType('RevisionFilter', {
  description: 'Narrows a deployment\'s revision list; every field given must match (AND). An empty list is the same as leaving the field out.',
  fields: (t) => ({
    statuses: t.field({ type: [RevisionStatusEnum], description: 'Any of these statuses.' }),
    remoteReconciled: t.boolean({ description: 'Only revisions that came (true) or did not come (false) from reconciling with the remote.' }),
  }),
});
