import { builder } from '../../graphql/builder.ts';
import { loadNodes } from '../../graphql/loaders.ts';
import { IntegrationRef } from '../integrations/integration.graphql.ts';
import type { DeploymentRow } from './deployment-row.ts';
import { DeploymentSourceEnum, DeploymentStatusEnum } from './deployment-enums.graphql.ts';
import { RevisionRef } from './revision.graphql.ts';
import { SecretRef, SecretReferenceRef } from './secret.graphql.ts';
import { SourceConfigRef, SourceRevisionConfigRef } from './source-config.graphql.ts';
import { TagValueRef } from './tag.graphql.ts';

// Declared before it is implemented, so types that point at each other need no inference cycle.
export const DeploymentRef = builder.objectRef<DeploymentRow>('Deployment');

builder.node(DeploymentRef, {
  description: 'An application deployed by the service, built from a repository, an image or a source archive.',
  id: { resolve: (deployment) => deployment.id },
  loadMany: (ids, ctx) => loadNodes(ctx.loaders.deployment, ids),
  fields: (t) => ({
    uuid: t.field({ type: 'UUID', description: 'Raw id of the deployment (`id` in REST records, `deployment_ids` filter).', resolve: (d) => d.id }),
    tenantId: t.field({ type: 'UUID', description: 'The owning tenant.', resolve: (d) => d.tenant_id }),
    name: t.exposeString('name', { description: 'Deployment name.' }),
    status: t.expose('status', { type: DeploymentStatusEnum, description: 'Lifecycle status.' }),
    source: t.expose('source', { type: DeploymentSourceEnum, description: 'Where the deployed code comes from.' }),
    remoteReconciled: t.exposeBoolean('remote_reconciled', { description: 'Whether the deployment is reconciled with the remote (code host) state.' }),
    imageVersion: t.exposeString('image_version', { nullable: true, description: 'Version of the image deployed.' }),
    sourceConfig: t.field({
      type: SourceConfigRef,
      description: 'How the deployment is built and run, with its resource spec.',
      resolve: (d) => ({ config: d.source_config, resourceSpec: d.resource_spec, deploymentType: d.deployment_type }),
    }),
    sourceRevisionConfig: t.expose('source_revision_config', {
      type: SourceRevisionConfigRef, nullable: true, description: 'Which revision of the source is deployed.',
    }),
    secrets: t.field({
      type: [SecretRef],
      description: 'Secret values, in their stored order (values need the read-secrets scope).',
      resolve: async (d, _args, ctx) => (await ctx.loaders.secretsAndReferences.load(d.id)).secrets,
    }),
    secretReferences: t.field({
      type: [SecretReferenceRef],
      description: 'Environment variables read from named secrets, in their stored order.',
      resolve: async (d, _args, ctx) => (await ctx.loaders.secretsAndReferences.load(d.id)).references,
    }),
    createdAt: t.expose('created_at', { type: 'DateTime', description: 'Creation time; the list is ordered by it, newest first.' }),
    updatedAt: t.expose('updated_at', { type: 'DateTime', description: 'Last update time.' }),
    latestRevisionId: t.expose('latest_revision_id', { type: 'UUID', nullable: true, description: 'Id of the latest revision.' }),
    activeRevisionId: t.expose('active_revision_id', { type: 'UUID', nullable: true, description: 'Id of the revision serving traffic.' }),
    latestRevision: t.field({
      type: RevisionRef, nullable: true,
      description: 'The latest revision; null when the service has not reported its record.',
      resolve: (d, _args, ctx) => (d.latest_revision_id ? ctx.loaders.revision.load(d.latest_revision_id) : null),
    }),
    activeRevision: t.field({
      type: RevisionRef, nullable: true,
      description: 'The revision serving traffic; null when the service has not reported its record.',
      resolve: (d, _args, ctx) => (d.active_revision_id ? ctx.loaders.revision.load(d.active_revision_id) : null),
    }),
    revisions: t.field({
      type: [RevisionRef],
      description: 'Every known revision, newest first.',
      resolve: (d, _args, ctx) => ctx.loaders.revisionsOfDeployment.load(d.id),
    }),
    tagValues: t.field({
      type: [TagValueRef],
      description: 'Tag values labelling the deployment.',
      resolve: (d, _args, ctx) => ctx.loaders.tagValuesOfDeployment.load(d.id),
    }),
    integration: t.field({
      type: IntegrationRef, nullable: true,
      description: 'The code-host integration its repository is reached through (`sourceConfig.integrationId`), if any.',
      resolve: (d, _args, ctx) => (d.source_config.integration_id ? ctx.loaders.integration.load(d.source_config.integration_id) : null),
    }),
  }),
});
