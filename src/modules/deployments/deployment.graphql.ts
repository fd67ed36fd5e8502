import { builder } from '../../graphql/builder.ts';
import { uuidOfArgument } from '../../graphql/global-id.ts';
import { loadNodes } from '../../graphql/loaders.ts';
import { columnsOf, fromSameRow, keyOf } from '../../graphql/selected-columns.ts';
import { IntegrationRef } from '../integrations/integration.graphql.ts';
import type { DeploymentReadModel } from './deployment-read-model.ts';
import { timestampFromText } from '../common/lean-rows.ts';
import { DeploymentSourceEnum, DeploymentStatusEnum } from './deployment-enums.graphql.ts';
import { SecretRef, SecretReferenceRef, selectsSecretValues } from './secret.graphql.ts';
import { SourceConfigRef, SourceConfigView, SourceRevisionConfigRef, SourceRevisionConfigView } from './source-config.graphql.ts';
import { TagValueRef } from './tag.graphql.ts';
import { deploymentTagFor } from './deployment-tag.ts';

// A deployment's revisions are fields of the revisions domain (revisions/deployment-revisions.graphql.ts).
// Declared before it is implemented, so types that point at each other need no inference cycle.
// Each field says which columns of the row it reads (`extensions`): a listing reads only what is selected.
export const DeploymentRef = builder.objectRef<DeploymentReadModel>('Deployment');

builder.node(DeploymentRef, {
  description: 'An application deployed by the service, built from a repository, an image or a source archive.',
  id: { resolve: (deployment) => deployment.id, extensions: columnsOf('id') },
  loadMany: (ids, ctx) => loadNodes(ctx.loaders.deployments.byId, ids),
  fields: (t) => ({
    uuid: t.field({ type: 'UUID', extensions: columnsOf('id'), description: 'Raw id of the deployment (`id` in REST records, `deployment_ids` filter).', resolve: (d) => d.id }),
    tenantId: t.field({ type: 'UUID', extensions: columnsOf('tenant_id'), description: 'The owning tenant.', resolve: (d) => d.tenant_id }),
    name: t.exposeString('name', { extensions: columnsOf('name'), description: 'Deployment name.' }),
    status: t.expose('status', { type: DeploymentStatusEnum, extensions: columnsOf('status'), description: 'Lifecycle status.' }),
    source: t.expose('source', { type: DeploymentSourceEnum, extensions: columnsOf('source'), description: 'Where the deployed code comes from.' }),
    remoteReconciled: t.exposeBoolean('remote_reconciled', { extensions: columnsOf('remote_reconciled'), description: 'Whether the deployment is reconciled with the remote (code host) state.' }),
    imageVersion: t.exposeString('image_version', { nullable: true, extensions: columnsOf('image_version'), description: 'Version of the image deployed.' }),
    sourceConfig: t.field({
      type: SourceConfigRef,
      extensions: fromSameRow(), description: 'How the deployment is built and run, with its resource spec.',
      resolve: (d) => new SourceConfigView(d.source_config, d.resource_spec, d.deployment_type),
    }),
    sourceRevisionConfig: t.field({
      type: SourceRevisionConfigRef, nullable: true, extensions: columnsOf('source_revision_config'), description: 'Which revision of the source is deployed.',
      resolve: (d) => (d.source_revision_config ? new SourceRevisionConfigView(d.source_revision_config) : null),
    }),
    secrets: t.field({
      type: [SecretRef],
      extensions: columnsOf('id'), description: 'Secret values, in their stored order (values need the read-secrets scope).',
      resolve: (d, _args, ctx, info) => ctx.loaders.deployments.secretsOf(d.id, ctx.loaders.deployments.revealedSecrets !== null && selectsSecretValues(info)),
    }),
    secretReferences: t.field({
      type: [SecretReferenceRef],
      extensions: columnsOf('id'), description: 'Environment variables read from named secrets, in their stored order.',
      resolve: (d, _args, ctx) => ctx.loaders.deployments.referencesOf(d.id),
    }),
    createdAt: t.field({
      type: 'DateTime', extensions: columnsOf('created_at'), description: 'Creation time; the list is ordered by it, newest first.',
      resolve: (d) => timestampFromText(d.created_at),
    }),
    updatedAt: t.field({
      type: 'DateTime', extensions: columnsOf('updated_at'), description: 'Last update time.',
      resolve: (d) => timestampFromText(d.updated_at),
    }),
    latestRevisionId: t.expose('latest_revision_id', { type: 'UUID', nullable: true, extensions: columnsOf('latest_revision_id'), description: 'Id of the latest revision.' }),
    activeRevisionId: t.expose('active_revision_id', { type: 'UUID', nullable: true, extensions: columnsOf('active_revision_id'), description: 'Id of the revision serving traffic.' }),
    etag: t.string({
      extensions: columnsOf('version'),
      description: 'Entity tag of the deployment as you see it (REST: the `ETag` header): send it as `ifMatch` so that a change made meanwhile is not overwritten.',
      resolve: (d, _args, ctx) => deploymentTagFor(ctx, d.id, d.version),
    }),
    tagValues: t.field({
      type: [TagValueRef],
      extensions: columnsOf('id'), description: 'Tag values labelling the deployment.',
      resolve: (d, _args, ctx) => ctx.loaders.tags.valuesOfDeployment.load(d.id),
    }),
    integration: t.field({
      type: IntegrationRef, nullable: true,
      extensions: keyOf('source_config', 'integration_id'), description: 'The code-host integration its repository is reached through (`sourceConfig.integrationId`), if any.',
      resolve: (d, _args, ctx) => (d.source_config.integration_id ? ctx.loaders.integrations.byId.load(d.source_config.integration_id) : null),
    }),
  }),
});

builder.queryField('deployment', (t) =>
  t.field({
    type: DeploymentRef,
    nullable: true,
    description: 'One deployment of the tenant (REST: GET /v2/deployments/{deployment_id}); null when the tenant has none of that id.',
    args: { id: t.arg.id({ required: true, description: 'The deployment: its global id, or its raw UUID as REST clients know it.' }) },
    resolve: (_root, args, ctx) => {
      const id = uuidOfArgument(String(args.id), 'Deployment', 'id');
      return id ? ctx.loaders.deployments.byId.load(id) : null;
    },
  }));
