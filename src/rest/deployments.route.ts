// GET /v2/deployments: the `deployments` query with the legacy parameters, and its page as the legacy JSON.
import { graphqlSelectionFor } from '../modules/common/legacy-json.ts';
import { DEPLOYMENT_STATUSES, DEPLOYMENT_TYPES } from '../modules/deployments/deployment-enums.ts';
import { deploymentRecordSchema } from '../modules/deployments/deployment-record.schema.ts';
import { MAX_FILTER_IDS } from '../modules/deployments/deployment-filter.graphql.ts';
import { MAX_PAGE_SIZE } from '../modules/deployments/deployment-list.graphql.ts';
import { legacyResponseSchema } from './response-schemas.ts';
import type { RestRoute } from './rest-route.ts';

/** What a key without the read-secrets scope sees instead of a secret's value. */
export const MASKED_SECRET = '********';
const GRAPHQL_INT_MAX = 2_147_483_647n;

const document = `query LegacyListDeployments($filter: DeploymentFilter, $limit: Int!, $offset: Int!) {
  deployments(filter: $filter, limit: $limit, offset: $offset) {
    resources ${graphqlSelectionFor(deploymentRecordSchema, { id: 'uuid' })}
    offset
  }
}`;

interface RecordFromGraphQL {
  source: string;
  source_config: { deployment_type: string };
  secrets: { name: string; value: string | null }[];
  [key: string]: unknown;
}

// GraphQL enum names are upper case; the legacy values are the lower-case ones they stand for.
function toLegacyRecord(record: RecordFromGraphQL): RecordFromGraphQL {
  return {
    ...record,
    source_config: { ...record.source_config, deployment_type: record.source_config.deployment_type.toLowerCase() },
    secrets: record.secrets.map(({ name, value }) => ({ name, value: value ?? MASKED_SECRET })),
    source: record.source.toLowerCase(),
  };
}

export const listDeploymentsRoute: RestRoute = {
  path: '/v2/deployments',
  operationId: 'list_deployments_v2_deployments_get',
  summary: 'List Deployments',
  description: 'Deployments of the tenant, newest first (created_at, then id, descending), filtered and paged by offset.',
  tag: 'deployments',
  parameters: [
    { name: 'limit', in: 'query', kind: 'int', default: 20, ge: 1, le: MAX_PAGE_SIZE, description: 'Maximum number of resources to return.' },
    { name: 'offset', in: 'query', kind: 'int', default: 0, ge: 0, description: 'Pagination offset; pass the returned offset to fetch the next page.' },
    { name: 'name_contains', in: 'query', kind: 'text', description: 'Case-insensitive substring of the name; `%`, `_` and `\\` match literally.' },
    { name: 'status', in: 'query', kind: 'enum-list', values: DEPLOYMENT_STATUSES, description: 'One status or a comma-separated list (any of them).' },
    { name: 'remote_reconciled', in: 'query', kind: 'bool', description: 'Filter by remote reconciled deployments.' },
    { name: 'tag_value_ids', in: 'query', kind: 'uuid-list', maxItems: MAX_FILTER_IDS, description: 'Comma-separated tag value ids: values of one tag key are alternatives, every key must match.' },
    { name: 'image_version', in: 'query', kind: 'text', description: 'Exact image version.' },
    { name: 'deployment_type', in: 'query', kind: 'literal', values: DEPLOYMENT_TYPES, description: 'One of dev_free, dev, prod.' },
    { name: 'deployment_ids', in: 'query', kind: 'uuid-list', maxItems: MAX_FILTER_IDS, description: `Comma-separated deployment ids, at most ${MAX_FILTER_IDS}.` },
  ],
  document,
  variables: ({ values }) => ({
    limit: Number(values.limit),
    // No tenant has 2^31 deployments: a larger offset is past the end, and GraphQL's Int stops there.
    offset: Number((values.offset as bigint) > GRAPHQL_INT_MAX ? GRAPHQL_INT_MAX : values.offset),
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
    const page = data.deployments as { resources: RecordFromGraphQL[]; offset: number };
    const requested = values.offset as bigint;
    return {
      status: 200,
      body: {
        resources: page.resources.map(toLegacyRecord),
        // Past the end the request's offset is echoed, exactly as sent even beyond what a JS number holds.
        offset: requested > GRAPHQL_INT_MAX ? JSON.rawJSON(requested.toString()) : page.offset,
      },
    };
  },
  responseSchema: legacyResponseSchema('DeploymentList'),
  errorStatuses: [],
};
