// What the benchmark measures: each scenario is one request, repeated under load.
import { graphqlSelectionFor } from '../src/modules/common/legacy-json.ts';
import { deploymentRecordSchema } from '../src/modules/deployments/deployment-record.schema.ts';

export interface Scenario {
  name: string;
  target: 'service' | 'ceiling';
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

export interface BenchIds {
  integrationId: string;
  /** Two values of one tag key (alternatives) and one value of another key. */
  tagValues: [string, string, string];
}

// The legacy record's fields under their GraphQL names: the same data as the REST page.
const everyRecordField = graphqlSelectionFor(deploymentRecordSchema, { id: 'uuid' }).replace(/\b[a-z0-9_]+: /g, '');

const graphql = (name: string, query: string, variables: Record<string, unknown> = {}): Scenario =>
  ({ name, target: 'service', method: 'POST', path: '/graphql', body: JSON.stringify({ query, variables }) });
const rest = (name: string, path: string): Scenario => ({ name, target: 'service', method: 'GET', path });

export function scenarios({ integrationId, tagValues: [a, b, c] }: BenchIds): Scenario[] {
  return [
    { name: 'ceiling: pg + JSON.stringify, 100', target: 'ceiling', method: 'GET', path: '/v2/deployments?limit=100' },
    rest('REST page of 100 (full records)', '/v2/deployments?limit=100'),
    graphql('GraphQL page of 100 (every record field)', `query Full($limit: Int!) { deployments(limit: $limit) { offset resources ${everyRecordField} } }`, { limit: 100 }),
    graphql('GraphQL light page (20 items, 3 fields)', '{ deployments(limit: 20) { resources { uuid name status } } }'),
    rest('REST name_contains', '/v2/deployments?limit=100&name_contains=agent-4'),
    rest('REST status list', '/v2/deployments?limit=100&status=READY,UNUSED'),
    rest('REST two tag keys', `/v2/deployments?limit=100&tag_value_ids=${a},${b},${c}`),
    rest('REST combined filters', `/v2/deployments?limit=100&status=READY,UNUSED,UNKNOWN&deployment_type=prod&remote_reconciled=false&tag_value_ids=${a},${b}&name_contains=a`),
    rest('REST deep page (offset 40,000)', '/v2/deployments?limit=100&offset=40000'),
    rest('REST repositories (50)', `/v1/integrations/codehost/${integrationId}/repos`),
    graphql('GraphQL repositories (50)', `query Repos($id: ID!) { repositories(integrationId: $id) { codeHostId name owner url defaultBranch hostIntegrationId } }`, { id: integrationId }),
  ];
}
