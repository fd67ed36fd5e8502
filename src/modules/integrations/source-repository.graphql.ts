import { builder } from '../../graphql/builder.ts';
import { loadNodes } from '../../graphql/loaders.ts';
import type { SourceRepository } from './source-repository.entity.ts';
import { IntegrationRef } from './integration.graphql.ts';

// Declared before it is implemented, so types that point at each other need no inference cycle.
export const RepositoryRef = builder.objectRef<SourceRepository>('Repository');

builder.node(RepositoryRef, {
  description: 'A source repository reachable through an integration; its fields feed a new deployment\'s source config.',
  id: { resolve: (repository) => repository.id },
  loadMany: (ids, ctx) => loadNodes(ctx.loaders.repository, ids),
  fields: (t) => ({
    uuid: t.field({ type: 'UUID', description: 'Raw id of this record in the gateway (REST identifies repositories by `codeHostId` instead).', resolve: (r) => r.id }),
    codeHostId: t.expose('codeHostId', { type: 'SafeInt', description: 'The code host\'s own repository id (`id` in REST records).' }),
    name: t.exposeString('name', { description: 'Repository name.' }),
    owner: t.exposeString('owner', { description: 'Repository owner (user or organisation).' }),
    url: t.exposeString('url', { description: 'Repository URL: the `sourceConfig.repoUrl` of a deployment built from it.' }),
    defaultBranch: t.exposeString('defaultBranch', { description: 'Default branch: the `sourceRevisionConfig.repoRef` of a deployment built from it.' }),
    hostIntegrationId: t.field({
      type: 'UUID', description: 'Raw id of the integration it is reached through (`host_integration_id` in REST).',
      resolve: (repository) => repository.integration.id,
    }),
    integration: t.field({
      type: IntegrationRef,
      description: 'The integration it is reached through.',
      resolve: async (repository, _args, ctx) => (await ctx.loaders.integration.load(repository.integration.id))!,
    }),
  }),
});
