// What the benchmark measures: each scenario is one request, repeated under load.
import { graphqlSelectionFor } from '../src/modules/common/legacy-json.ts';
import { deploymentRecordSchema } from '../src/modules/deployments/deployment-record.schema.ts';
import { BENCH_APP_ORIGIN } from './harness.ts';
import type { LoadPlan } from './conditional-scenarios.ts';

export interface Scenario {
  name: string;
  target: 'service' | 'ceiling';
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: string;
  /**
   * Each request's path and body, for a write whose every request differs (bench/write-scenarios.ts: a fresh
   * name, the next deployment of a pool); `path` and `body` are then not sent.
   */
  request?: () => { path: string; body: string };
  /** Request headers beyond the key and the content type (Accept-Encoding for the compressed pages). */
  headers?: Record<string, string>;
  /** The ceiling scenario (by name) this one's throughput is compared with. */
  ceiling: string;
  /** In the connection-scaling table too. */
  scaling?: boolean;
  /** In the workers table too: the same load on a service with one worker and on one with WORKERS (auto). */
  workers?: boolean;
  /** Sent with the key that has the secrets scope (values decrypted); others use the masked key. */
  readsSecrets?: boolean;
  /** Sent with the write tenant's key, which may write (bench/write-tenant.ts). */
  writes?: boolean;
  /** A ceiling's statements per request (the service's are counted). */
  statements?: number;
  /**
   * Requests made from a first answer, before each load (bench/conditional-scenarios.ts): they replace `path`
   * and `body`, and their answers are checked by the plan instead of being 2xx.
   */
  plan?: (baseUrl: string, key: string) => Promise<LoadPlan>;
  /** Sent with the key of the changed page's tenant, which may write (bench/conditional-scenarios.ts). */
  changesPage?: boolean;
}

export interface BenchIds {
  integrationId: string;
  /** Two values of one tag key (alternatives) and one value of another key. */
  tagValues: [string, string, string];
}

// The legacy record's fields under their GraphQL names: the same data as the REST page.
const everyRecordField = graphqlSelectionFor(deploymentRecordSchema, { id: 'uuid' }).replace(/\b[a-z0-9_]+: /g, '');

export const FLOOR = 'floor: bare node:http, fixed JSON';
export const LIGHT_CEILING = 'ceiling: pg, 3 columns of 20 rows + JSON.stringify';
export const FULL_CEILING = 'ceiling: pg + JSON.stringify, 100';
const JSON_AGG_CEILING = 'ceiling: PostgreSQL builds the JSON (json_agg), 100';
export const FULL_PAGE = 'REST page of 100 (full records)';
const LIGHT_PAGE = 'GraphQL light page (20 items, uuid name status)';
const LIGHT_QUERY = '{ deployments(limit: 20) { resources { uuid name status } } }';
/**
 * What a frontend app's request carries from a browser: every current browser asks for compression and sends
 * its page's Origin with a POST; the Accept is Apollo Client's. The app is on another origin, which the
 * service allows (CORS_ORIGINS in bench/harness.ts).
 */
const BROWSER_APP_HEADERS = {
  'accept-encoding': 'gzip, deflate, br, zstd',
  accept: 'application/graphql-response+json,application/json;q=0.9',
  origin: BENCH_APP_ORIGIN,
};

const ceiling = (name: string, path: string, statements: number, compareWith = name, scaling = false): Scenario =>
  ({ name, target: 'ceiling', method: 'GET', path, ceiling: compareWith, scaling, statements });
const graphql = (name: string, query: string, compareWith: string, variables: Record<string, unknown> = {}, scaling = false): Scenario =>
  ({ name, target: 'service', method: 'POST', path: '/graphql', body: JSON.stringify({ query, variables }), ceiling: compareWith, scaling });
const rest = (name: string, path: string, compareWith = FULL_CEILING, scaling = false): Scenario =>
  ({ name, target: 'service', method: 'GET', path, ceiling: compareWith, scaling });
// Compared with the same page uncompressed: what compressing it costs (docs/performance.md#compression).
const compressedFullPage = (encoding: string): Scenario =>
  ({ ...rest(`REST page of 100, compressed (Accept-Encoding: ${encoding})`, '/v2/deployments?limit=100', FULL_PAGE), headers: { 'accept-encoding': encoding } });

export function scenarios({ integrationId, tagValues: [a, b, c] }: BenchIds): Scenario[] {
  return [
    ceiling(FLOOR, '/floor', 0),
    ceiling(LIGHT_CEILING, '/light?limit=20', 1, LIGHT_CEILING, true),
    ceiling(FULL_CEILING, '/v2/deployments?limit=100', 2, FULL_CEILING, true),
    // Compared with the pg + JSON.stringify ceiling: how much building the JSON in PostgreSQL would change.
    ceiling(JSON_AGG_CEILING, '/json-agg?limit=100', 1, FULL_CEILING),
    graphql('GraphQL { __typename } with a key', '{ __typename }', FLOOR),
    graphql(LIGHT_PAGE, LIGHT_QUERY, LIGHT_CEILING, {}, true),
    // The same page as a frontend app on another origin gets it from a browser, compressed (its 1.9 KB are
    // above the threshold) and with CORS headers: compared with the page as above, what that costs.
    { ...graphql('GraphQL light page, as a browser app asks (Apollo Client, another origin, compressed)', LIGHT_QUERY, LIGHT_PAGE), headers: BROWSER_APP_HEADERS },
    graphql('GraphQL medium page (20 items, resource spec cpu/memory, latest revision status)',
      '{ deployments(limit: 20) { resources { uuid name status sourceConfig { resourceSpec { cpu memoryMb } } latestRevision { status } } } }', LIGHT_CEILING),
    { ...rest(FULL_PAGE, '/v2/deployments?limit=100', FULL_CEILING, true), workers: true },
    // Compared with the masked page: what decrypting its ~650 secret values costs.
    { ...rest('REST page of 100, secrets revealed (read-secrets key)', '/v2/deployments?limit=100', FULL_PAGE), readsSecrets: true },
    compressedFullPage('gzip'),
    compressedFullPage('br'),
    compressedFullPage('zstd'),
    graphql('GraphQL page of 100 (every record field)', `query Full($limit: Int!) { deployments(limit: $limit) { offset resources ${everyRecordField} } }`, FULL_CEILING, { limit: 100 }),
    rest('REST name_contains', '/v2/deployments?limit=100&name_contains=agent-4'),
    rest('REST status list', '/v2/deployments?limit=100&status=READY,UNUSED'),
    rest('REST two tag keys', `/v2/deployments?limit=100&tag_value_ids=${a},${b},${c}`),
    rest('REST combined filters', `/v2/deployments?limit=100&status=READY,UNUSED,UNKNOWN&deployment_type=prod&remote_reconciled=false&tag_value_ids=${a},${b}&name_contains=a`),
    graphql('GraphQL filtered page (status list, 100, every record field)',
      `query Filtered($limit: Int!) { deployments(limit: $limit, filter: { statuses: [READY, UNUSED] }) { offset resources ${everyRecordField} } }`, FULL_CEILING, { limit: 100 }),
    rest('REST deep page (offset 40,000)', '/v2/deployments?limit=100&offset=40000'),
    rest('REST repositories (50)', `/v1/integrations/codehost/${integrationId}/repos`),
    graphql('GraphQL repositories (50)', `query Repos($id: ID!) { repositories(integrationId: $id) { codeHostId name owner url defaultBranch hostIntegrationId } }`, FULL_CEILING, { id: integrationId }),
    // Only the columns selected are read (name and url, beside the id and the integration).
    graphql('GraphQL repositories, light (50, name url)', `query LightRepos($id: ID!) { repositories(integrationId: $id) { name url } }`, LIGHT_CEILING, { id: integrationId }),
    // Relations read as rows: tag values through the pivot, their keys, the integrations (one statement each).
    graphql('GraphQL tagged page (20 items, tag values with keys, integration)',
      '{ deployments(limit: 20) { resources { uuid name tagValues { value tagKey { key } } integration { name } } } }', LIGHT_CEILING),
  ];
}
