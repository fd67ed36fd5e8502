// The installation listings of /v1 (the `integrations` query): the tenant's code-host integrations (under the
// literal `codehost` segment, or a code host's own name such as the original's `github`) and its managed ones
// (under our path and the original's `forge/github`). Each answers a bare array of {id, installation_id, name};
// an integration whose installation id is unknown is not listed (docs/decisions.md#integration-installations).
import { graphqlSelectionFor } from '../modules/common/legacy-json.ts';
import { installationRecordSchema, legacyResponseSchema } from './response-schemas.ts';
import type { RestRoute } from './rest-route.ts';

const document = `query LegacyListInstallations($kind: IntegrationKind!, $codehost: String) {
  integrations(kind: $kind, codehost: $codehost, installed: true) ${graphqlSelectionFor(installationRecordSchema, { id: 'uuid' })}
}`;

function installationRoute(path: string, kind: 'CODEHOST' | 'MANAGED', operationId: string, summary: string, extra: Partial<RestRoute> = {}): RestRoute {
  return {
    path,
    operationId,
    summary,
    description: 'Installed integrations of the tenant, by name (case-insensitive), then id; `id` is what a deployment names as `integration_id`.',
    tag: 'integrations',
    parameters: [],
    document,
    variables: ({ path: segments }) => ({ kind, codehost: segments.codehost }),
    respond: (data) => ({ status: 200, body: data.integrations }),
    responseSchema: legacyResponseSchema('InstallationList'),
    ...extra,
  };
}

export const installationRoutes: RestRoute[] = [
  installationRoute('/v1/integrations/codehost/install', 'CODEHOST', 'list_installations_v1_integrations_codehost_install_get', 'List Installations'),
  installationRoute('/v1/integrations/{codehost}/install', 'CODEHOST', 'list_installations_by_codehost_v1_integrations__codehost__install_get', 'List Installations (code host by name)', {
    description: 'The same listing for one code host, named in the path: `/v1/integrations/github/install` is the original\'s path. Another name lists that host\'s integrations (often none).',
    parameters: [{ name: 'codehost', in: 'path', kind: 'text', description: 'A code-host name, e.g. `github`.' }],
  }),
  installationRoute('/v1/integrations/managed/codehost/install', 'MANAGED', 'list_managed_installations_v1_integrations_managed_codehost_install_get', 'List Managed Installations'),
  installationRoute('/v1/integrations/forge/github/install', 'MANAGED', 'list_managed_installations_v1_integrations_forge_github_install_get', 'List Managed Installations (original path)'),
];
