import type { GraphQLResolveInfo } from 'graphql';
import { builder } from '../../graphql/builder.ts';
import type { GraphQLContext } from '../../graphql/context.ts';
import { notFound } from '../../graphql/errors.ts';
import { uuidOfArgument } from '../../graphql/global-id.ts';
import { loadNodes } from '../../graphql/loaders.ts';
import { selectedColumns } from '../../graphql/selected-columns.ts';
import type { IntegrationKind } from './integration-kinds.ts';
import type { IntegrationReadModel } from './integration-read-model.ts';
import { RepositoryRef } from './source-repository.graphql.ts';

export const IntegrationKindEnum = builder.enumType('IntegrationKind', {
  description: 'Whether an integration is a code-host integration or its managed variant.',
  values: {
    CODEHOST: { value: 'codehost', description: 'A code-host integration (`repositories`).' },
    MANAGED: { value: 'managed', description: 'A managed integration (`managedRepositories`).' },
  } as const,
});

// Declared before it is implemented, so types that point at each other need no inference cycle.
export const IntegrationRef = builder.objectRef<IntegrationReadModel>('Integration');

builder.node(IntegrationRef, {
  description: 'A connection to a code host through which source repositories are reached.',
  id: { resolve: (integration) => integration.id },
  loadMany: (ids, ctx) => loadNodes(ctx.loaders.integrations.byId, ids),
  fields: (t) => ({
    uuid: t.field({ type: 'UUID', description: 'Raw id (`integration_id` in REST paths and deployment records).', resolve: (i) => i.id }),
    kind: t.expose('kind', { type: IntegrationKindEnum, description: 'Code-host integration or managed one.' }),
    codehost: t.exposeString('codehost', { description: 'Name of the code host, e.g. `github`.' }),
    name: t.exposeString('name', { description: 'Display name, e.g. the organisation reached.' }),
    installationId: t.expose('installation_id', {
      type: 'SafeInt', nullable: true,
      description: 'The code host\'s id of the installation (REST: `installation_id` of the `/install` listings); null when it was not reported.',
    }),
    createdAt: t.expose('created_at', { type: 'DateTime', description: 'When the integration was recorded.' }),
    updatedAt: t.expose('updated_at', { type: 'DateTime', description: 'When the integration was last changed.' }),
    repositories: t.field({
      type: [RepositoryRef],
      description: 'Repositories reachable through it, by owner, then name (case-insensitive), then code-host id.',
      // Only the columns the selected fields read (see selected-columns.ts).
      resolve: (integration, _args, ctx, info) => ctx.loaders.integrations.repositoriesOf(selectedColumns(info, [])).load(integration.id),
    }),
  }),
});

builder.queryField('integrations', (t) =>
  t.field({
    type: [IntegrationRef],
    description: 'The integrations of the tenant, by name (case-insensitive), then id (REST: GET /v1/integrations/codehost/install and its variants).',
    args: {
      kind: t.arg({ type: IntegrationKindEnum, description: 'Only integrations of this kind.' }),
      codehost: t.arg.string({ description: 'Only integrations of this code host, e.g. `github`.' }),
      installed: t.arg.boolean({ description: 'Only integrations whose installation id is known (true) or unknown (false).' }),
    },
    // PostgreSQL text cannot hold NUL, so no stored code-host name has one: nothing matches (and nothing fails).
    resolve: (_root, args, ctx) => (args.codehost?.includes('\u0000') ? [] : ctx.loaders.integrations.list(args)),
  }));

const integrationIdDescription = 'The integration: its global id, or its raw UUID as REST clients know it.';

builder.queryField('repositories', (t) =>
  t.field({
    type: [RepositoryRef],
    description: 'Repositories reachable through a code-host integration (REST: GET /v1/integrations/codehost/{integration_id}/repos).',
    args: { integrationId: t.arg.id({ required: true, description: integrationIdDescription }) },
    resolve: (_root, { integrationId }, ctx, info) => repositoriesOf(String(integrationId), 'codehost', ctx, info),
  }));

builder.queryField('managedRepositories', (t) =>
  t.field({
    type: [RepositoryRef],
    description: 'Repositories reachable through a managed integration (REST: GET /v1/integrations/managed/codehost/{integration_id}/repos).',
    args: { integrationId: t.arg.id({ required: true, description: integrationIdDescription }) },
    resolve: (_root, { integrationId }, ctx, info) => repositoriesOf(String(integrationId), 'managed', ctx, info),
  }));

/**
 * An integration of the wrong kind, another tenant's or an unknown one are all the same NOT_FOUND. Only the
 * columns the selected fields read are read (all of them for REST's full record).
 */
async function repositoriesOf(argument: string, kind: IntegrationKind, ctx: GraphQLContext, info: GraphQLResolveInfo) {
  const id = uuidOfArgument(argument, 'Integration', 'integrationId');
  const integration = id ? await ctx.loaders.integrations.byId.load(id) : null;
  if (!integration || integration.kind !== kind) throw notFound(`Integration ${id ?? argument} not found.`);
  return ctx.loaders.integrations.repositoriesOf(selectedColumns(info, [])).load(integration.id);
}
