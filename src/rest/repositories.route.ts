// The repository listings of /v1: a code-host integration's (under the literal `codehost` segment or the
// integration's own code-host name) and a managed integration's (under its path and the original
// service's `forge/github` path). All answer with a bare array of repository records.
import { encodeGlobalId } from '../graphql/global-id.ts';
import { graphqlSelectionFor } from '../modules/common/legacy-json.ts';
import { legacyResponseSchema, repositoryRecordSchema } from './response-schemas.ts';
import type { RestRoute, RouteCall } from './rest-route.ts';
import type { ParameterSpec } from './parameters.ts';

const integrationId: ParameterSpec = { name: 'integration_id', in: 'path', kind: 'uuid', description: 'ID of the integration.' };
const selection = graphqlSelectionFor(repositoryRecordSchema, { id: 'codeHostId' });

function documentFor(field: 'repositories' | 'managedRepositories', name: string): string {
  return `query ${name}($integrationId: ID!, $integrationNode: ID!) {
  integration: node(id: $integrationNode) { ... on Integration { codehost } }
  repositories: ${field}(integrationId: $integrationId) ${selection}
}`;
}

const variables = ({ values }: RouteCall) => ({
  integrationId: values.integration_id,
  integrationNode: encodeGlobalId('Integration', values.integration_id as string),
});

const notFound = (id: unknown) => ({ status: 404, body: { detail: `Integration ${String(id)} not found.` } });

function repositoryRoute(
  path: string, field: 'repositories' | 'managedRepositories', operationId: string, summary: string, extra: Partial<RestRoute> = {},
): RestRoute {
  return {
    path,
    operationId,
    summary,
    description: 'Repositories reachable through the integration, by owner, then name (case-insensitive), then id.',
    tag: 'integrations',
    parameters: [integrationId],
    document: documentFor(field, field === 'repositories' ? 'LegacyListRepositories' : 'LegacyListManagedRepositories'),
    variables,
    respond: (data) => ({ status: 200, body: data.repositories }),
    responseSchema: legacyResponseSchema('RepositoryList'),
    notFound: '`Integration <integration_id> not found.`: unknown, another tenant\'s, or of the other kind.',
    ...extra,
  };
}

export const repositoryRoutes: RestRoute[] = [
  repositoryRoute('/v1/integrations/codehost/{integration_id}/repos', 'repositories', 'list_repositories_v1_integrations_codehost__integration_id__repos_get', 'List Repositories'),
  repositoryRoute('/v1/integrations/{codehost}/{integration_id}/repos', 'repositories', 'list_repositories_by_codehost_v1_integrations__codehost___integration_id__repos_get', 'List Repositories (code host by name)', {
    description: 'The same listing with the integration\'s own code-host name (e.g. `github`) in place of `codehost`; another name answers 404.',
    parameters: [{ name: 'codehost', in: 'path', kind: 'text', description: 'The integration\'s code-host name, e.g. `github`.' }, integrationId],
    respond: (data, { path, values }) => (data.integration?.codehost === path.codehost
      ? { status: 200, body: data.repositories }
      : notFound(values.integration_id)),
  }),
  repositoryRoute('/v1/integrations/managed/codehost/{integration_id}/repos', 'managedRepositories', 'list_managed_repositories_v1_integrations_managed_codehost__integration_id__repos_get', 'List Managed Repositories'),
  repositoryRoute('/v1/integrations/forge/github/{integration_id}/repos', 'managedRepositories', 'list_managed_repositories_v1_integrations_forge_github__integration_id__repos_get', 'List Managed Repositories (original path)'),
];
