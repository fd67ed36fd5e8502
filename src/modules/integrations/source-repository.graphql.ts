import { builder } from '../../graphql/builder.ts';
import { loadNodes } from '../../graphql/loaders.ts';
import { columnsOf } from '../../graphql/selected-columns.ts';
import type { SourceRepositoryReadModel } from './integration-read-model.ts';
import { IntegrationRef } from './integration.graphql.ts';

// Declared before it is implemented, so types that point at each other need no inference cycle.
// Each field says which columns of the row it reads (`extensions`): a listing reads only what is selected.
export const RepositoryRef = builder.objectRef<SourceRepositoryReadModel>('Repository');

builder.node(RepositoryRef, {
  description: 'A source repository reachable through an integration; its fields feed a new deployment\'s source config.',
  id: { resolve: (repository) => repository.id, extensions: columnsOf('id') },
  loadMany: (ids, ctx) => loadNodes(ctx.loaders.integrations.repositoryById, ids),
  fields: (t) => ({
    uuid: t.field({
      type: 'UUID', extensions: columnsOf('id'),
      description: 'Raw id of this record in the gateway (REST identifies repositories by `codeHostId` instead).', resolve: (r) => r.id,
    }),
    codeHostId: t.expose('code_host_id', { type: 'SafeInt', extensions: columnsOf('code_host_id'), description: 'The code host\'s own repository id (`id` in REST records).' }),
    name: t.exposeString('name', { extensions: columnsOf('name'), description: 'Repository name.' }),
    owner: t.exposeString('owner', { extensions: columnsOf('owner'), description: 'Repository owner (user or organisation).' }),
    url: t.exposeString('url', { extensions: columnsOf('url'), description: 'Repository URL: the `sourceConfig.repoUrl` of a deployment built from it.' }),
    defaultBranch: t.exposeString('default_branch', {
      extensions: columnsOf('default_branch'), description: 'Default branch: the `sourceRevisionConfig.repoRef` of a deployment built from it.',
    }),
    hostIntegrationId: t.field({
      type: 'UUID', extensions: columnsOf('integration_id'), description: 'Raw id of the integration it is reached through (`host_integration_id` in REST).',
      resolve: (repository) => repository.integration_id,
    }),
    integration: t.field({
      type: IntegrationRef,
      extensions: columnsOf('integration_id'), description: 'The integration it is reached through.',
      resolve: async (repository, _args, ctx) => (await ctx.loaders.integrations.byId.load(repository.integration_id))!,
    }),
  }),
});
