// `subscription { revisionUpdated(deploymentId:) }`: every status change of a deployment's revisions, as it is
// committed, over Server-Sent Events (docs/graphql.md#waiting-for-a-revision). Clients wait for a revision
// here instead of polling it. The stream comes from the process's live feed (deployment-change-feed.ts), which
// hears the database's NOTIFY, so reports made through any worker or gateway arrive.
import { GraphQLError } from 'graphql';
import { builder } from '../../../graphql/builder.ts';
import { notFound } from '../../../graphql/errors.ts';
import { uuidOfArgument } from '../../../graphql/global-id.ts';
import { RequestLoaders } from '../../../graphql/loaders.ts';
import { RevisionStatusEnum } from '../../deployments/deployment-enums.graphql.ts';
import { DeploymentSchema } from '../../deployments/deployment.entity.ts';
import { liveUpdateErrors } from '../../deployments/live/live-update-errors.ts';
import { RevisionRef } from '../revision.graphql.ts';
import type { TransitionItem } from './revision-transition-stream.ts';
import type { RevisionTransition } from './revision-transitions.ts';

const RevisionTransitionRef = builder.objectRef<RevisionTransition>('RevisionTransition').implement({
  description: 'One status change of a revision (or a new revision, QUEUED), as a live update.',
  fields: (t) => ({
    revisionId: t.field({ type: 'UUID', description: 'Raw id of the revision.', resolve: (transition) => transition.revisionId }),
    deploymentId: t.field({ type: 'UUID', description: 'Raw id of its deployment.', resolve: (transition) => transition.deploymentId }),
    previousStatus: t.field({
      type: RevisionStatusEnum, nullable: true, description: 'The status it left; null for a revision just created.', resolve: (transition) => transition.from,
    }),
    status: t.field({ type: RevisionStatusEnum, description: 'The status it reached.', resolve: (transition) => transition.to }),
    at: t.expose('at', { type: 'DateTime', description: 'When (the revision\'s `updatedAt` as the change set it).' }),
    revision: t.field({
      type: RevisionRef, nullable: true,
      description: 'The revision as it is when the event is sent (its status may have moved on: `status` is this change\'s); null if it was deleted since.',
      resolve: (transition, _args, ctx) => ctx.loaders.revisions.byId.load(transition.revisionId),
    }),
  }),
});

builder.subscriptionField('revisionUpdated', (t) =>
  t.field({
    type: RevisionTransitionRef,
    description: 'Every status change of the deployment\'s revisions, in the order they were committed, and each new revision: wait for a revision to be '
      + 'DEPLOYED (or to fail) without polling. An event with the error code CHANGES_MISSED means some were not delivered: read the revision again; the stream goes on.',
    args: { deploymentId: t.arg.id({ required: true, description: 'The deployment (raw UUID or global id).' }) },
    subscribe: async (_root, { deploymentId }, ctx) => {
      const feed = ctx.deploymentChanges;
      if (!feed) throw liveUpdateErrors.unavailable();
      const id = uuidOfArgument(String(deploymentId), 'Deployment', 'deploymentId');
      // Read on the primary: the NOTIFY that announces a change comes from there, and a replica may lag behind it.
      const primary = ctx.primaryEm();
      if (!id) throw notFound(`Deployment ID ${String(deploymentId)} not found.`);
      // Opened before the deployment is checked, so that nothing committed in between is missed.
      const stream = feed.openTransitions(ctx.principal, id);
      // Closed on every way out but success, so that it does not count against the key's limit for nothing.
      const exists = await primary.count(DeploymentSchema, { id }).then((count) => count > 0, async (error: unknown) => {
        await stream.return();
        throw error;
      });
      if (!exists) {
        await stream.return();
        throw notFound(`Deployment ID ${String(deploymentId)} not found.`);
      }
      ctx.em = () => primary;
      return stream;
    },
    resolve: (item: TransitionItem, _args, ctx) => {
      if (item instanceof GraphQLError) throw item;
      // Fresh loaders for every event: the revision is read as it is now, not as an earlier event left it.
      ctx.loaders = new RequestLoaders(ctx.em, ctx.revealer);
      return item;
    },
  }));
