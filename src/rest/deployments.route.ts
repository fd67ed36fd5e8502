// GET /v2/deployments (the `deployments` query with the legacy parameters) and GET /v2/deployments/{deployment_id}
// (the `deployment` query): deployment records as the legacy JSON, made here at the edge from the GraphQL answer
// (the Deployment type over the read model). Nothing else in the service makes that JSON.
import { graphqlSelectionFor } from '../modules/common/legacy-json.ts';
import { DEPLOYMENT_STATUSES, DEPLOYMENT_TYPES } from '../modules/deployments/deployment-enums.ts';
import { deploymentRecordSchema } from '../modules/deployments/deployment-record.schema.ts';
import { MAX_FILTER_IDS } from '../modules/deployments/deployment-filter.graphql.ts';
import { nextOffset, pageParameters, pageVariables } from './offset-pages.ts';
import type { ParameterSpec } from './parameters.ts';
import { ETAG_HEADER } from './openapi.ts';
import { legacyResponseSchema } from './response-schemas.ts';
import type { RestRoute } from './rest-route.ts';

/** What a key without the read-secrets scope sees instead of a secret's value. */
export const MASKED_SECRET = '********';

const recordSelection = graphqlSelectionFor(deploymentRecordSchema, { id: 'uuid' });

const listDocument = `query LegacyListDeployments($filter: DeploymentFilter, $limit: Int!, $offset: Int!) {
  deployments(filter: $filter, limit: $limit, offset: $offset) {
    resources ${recordSelection}
    offset
  }
}`;

/** A deployment record (docs/legacy-api.md#deployment-record), as the route's document selects it. */
interface LegacyDeploymentJson {
  source: string;
  source_config: { deployment_type: string };
  secrets: { name: string; value: string | null }[];
  [key: string]: unknown;
}

// GraphQL enum names are upper case; the legacy values are the lower-case ones they stand for. The record is
// the route's own (made by this request's execution), so it is changed in place: each key keeps its place, and
// a page of 100 makes no second copy of its records.
function toLegacyJson(record: LegacyDeploymentJson): LegacyDeploymentJson {
  record.source_config.deployment_type = record.source_config.deployment_type.toLowerCase();
  for (const secret of record.secrets) secret.value ??= MASKED_SECRET;
  record.source = record.source.toLowerCase();
  return record;
}

export const listDeploymentsRoute: RestRoute = {
  path: '/v2/deployments',
  operationId: 'list_deployments_v2_deployments_get',
  summary: 'List Deployments',
  description: 'Deployments of the tenant, newest first (created_at, then id, descending), filtered and paged by offset.',
  tag: 'deployments',
  parameters: [
    ...pageParameters,
    { name: 'name_contains', in: 'query', kind: 'text', description: 'Case-insensitive substring of the name; `%`, `_` and `\\` match literally.' },
    { name: 'status', in: 'query', kind: 'enum-list', values: DEPLOYMENT_STATUSES, description: 'One status or a comma-separated list (any of them).' },
    { name: 'remote_reconciled', in: 'query', kind: 'bool', description: 'Filter by remote reconciled deployments.' },
    { name: 'tag_value_ids', in: 'query', kind: 'uuid-list', maxItems: MAX_FILTER_IDS, description: 'Comma-separated tag value ids: values of one tag key are alternatives, every key must match.' },
    { name: 'image_version', in: 'query', kind: 'text', description: 'Exact image version.' },
    { name: 'deployment_type', in: 'query', kind: 'literal', values: DEPLOYMENT_TYPES, description: 'One of dev_free, dev, prod.' },
    { name: 'deployment_ids', in: 'query', kind: 'uuid-list', maxItems: MAX_FILTER_IDS, description: `Comma-separated deployment ids, at most ${MAX_FILTER_IDS}.` },
  ],
  document: listDocument,
  variables: ({ values }) => ({
    ...pageVariables(values),
    filter: {
      nameContains: values.name_contains,
      statuses: values.status,
      remoteReconciled: values.remote_reconciled,
      tagValueIds: values.tag_value_ids,
      imageVersion: values.image_version,
      deploymentType: typeof values.deployment_type === 'string' ? values.deployment_type.toUpperCase() : undefined,
      ids: values.deployment_ids,
    },
  }),
  respond: (data, { values }) => {
    const page = data.deployments as { resources: LegacyDeploymentJson[]; offset: number };
    return { status: 200, body: { resources: page.resources.map(toLegacyJson), offset: nextOffset(values, page.offset) } };
  },
  responseSchema: legacyResponseSchema('DeploymentList'),
};

/** The record selection with the deployment's entity tag, which answers carry as their ETag header. */
export const recordWithEtag = recordSelection.replace(/ }$/, ' etag }');

/** A single deployment's answer: its record, its ETag (and its Location, for a new one) in the headers. */
export function deploymentAnswer(status: number, deployment: LegacyDeploymentJson & { etag: string }, location = false) {
  const { etag, ...record } = deployment;
  const headers: Record<string, string> = { etag };
  if (location) headers.location = `/v2/deployments/${String(record.id)}`;
  return { status, body: toLegacyJson(record as LegacyDeploymentJson), headers };
}

export const deploymentIdParameter: ParameterSpec = { name: 'deployment_id', in: 'path', kind: 'uuid', description: 'ID of the deployment.' };

/** The original's 404 for a deployment the tenant does not have (unknown, or another tenant's). */
export const deploymentNotFound = (id: unknown) => ({ status: 404, body: { detail: `Deployment ID ${String(id)} not found.` } });
export const DEPLOYMENT_NOT_FOUND = '`Deployment ID <deployment_id> not found.`: unknown, or another tenant\'s.';

export const getDeploymentRoute: RestRoute = {
  path: '/v2/deployments/{deployment_id}',
  operationId: 'get_deployment_v2_deployments__deployment_id__get',
  summary: 'Get Deployment',
  description: 'One deployment of the tenant, as the list shows it.',
  tag: 'deployments',
  parameters: [deploymentIdParameter],
  document: `query LegacyGetDeployment($id: ID!) {
  deployment(id: $id) ${recordWithEtag}
}`,
  variables: ({ values }) => ({ id: values.deployment_id }),
  respond: (data, { values }) => (data.deployment
    ? deploymentAnswer(200, data.deployment as LegacyDeploymentJson & { etag: string })
    : deploymentNotFound(values.deployment_id)),
  successHeaders: { ETag: ETAG_HEADER },
  deploymentRepresentation: true,
  responseSchema: legacyResponseSchema('Deployment'),
  notFound: DEPLOYMENT_NOT_FOUND,
};
