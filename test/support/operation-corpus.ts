// The GraphQL documents the project really runs, for test/compiled-operations.test.ts: each REST route's fixed
// operation with the variables of realistic calls, the example frontend's operations (its trusted-documents
// manifest, the exact text it sends), GraphiQL's example query, the queries of README.md and docs/, the
// documents the test files send (documents-in-tests.ts), and documents made by the tests' builders (the fullest
// selection of each type, random partial selections of the projection tests).
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { Kind, isObjectType, parse, type GraphQLObjectType } from 'graphql';
import { seeded } from '../../bench/dataset.ts';
import { PROJECT_ROOT } from '../../src/config.ts';
import { buildDemoDocument } from '../../src/demo/demo-dataset.ts';
import { EXAMPLE_QUERY } from '../../src/graphql/graphiql.ts';
import { schema } from '../../src/graphql/schema.ts';
import { parseParameters, type ParameterSpec } from '../../src/rest/parameters.ts';
import { REST_ROUTES } from '../../src/rest/routes.ts';
import type { RestRoute } from '../../src/rest/rest-route.ts';
import { documentsInTests } from './documents-in-tests.ts';
import { ACME_DEPLOYMENT, ACME_INTEGRATION, GLOBEX_DEPLOYMENT, GLOBEX_INTEGRATION } from './fixtures.ts';
import { deploymentListing, partialDocument, printings, treeOf, type Printing } from './generated-selections.ts';
import { ACME_EMPTY, ACME_MANAGED, ACME_ORDERING } from './repository-data.ts';
import { GLOBEX_APP_REVISIONS, HISTORY_APP, HISTORY_REVISIONS, QUIET_APP } from './revision-data.ts';
import { selectEverything } from './select-everything.ts';
import type { Variables } from './operation-variables.ts';

export type CorpusSource = 'rest' | 'examples' | 'graphiql' | 'docs' | 'tests' | 'builders';

export interface CorpusEntry {
  source: CorpusSource;
  /** Where it comes from: a route, a file. */
  origin: string;
  text: string;
  /** The variables it is run with; none: made from its variables' uses (operation-variables.ts). */
  variables?: Variables[];
}

/** A deployment revision of the fixture (checkout-prod's active one). */
const CHECKOUT_DEPLOYED = '66666666-6666-4666-8666-666666666661';
const UNKNOWN = '0badc0de-0000-4000-8000-000000000000';

/** Path parameter values of the REST calls, by parameter name: the fixture's, other tenants', unknown ones. */
const PATH_VALUES: Record<string, string[]> = {
  deployment_id: [ACME_DEPLOYMENT, HISTORY_APP, QUIET_APP, GLOBEX_DEPLOYMENT, UNKNOWN],
  revision_id: [CHECKOUT_DEPLOYED, HISTORY_REVISIONS[0]!.id, HISTORY_REVISIONS[24]!.id, GLOBEX_APP_REVISIONS[0]!, UNKNOWN],
  integration_id: [ACME_INTEGRATION, ACME_MANAGED, ACME_ORDERING, ACME_EMPTY, GLOBEX_INTEGRATION, UNKNOWN],
  codehost: ['github', 'gitlab', 'GitHub'],
  // No fixture has listeners: an unknown one, and one that is not even a listener's id.
  listener_id: [UNKNOWN, ACME_DEPLOYMENT],
};

const demo = buildDemoDocument();

/** Query parameter values of the REST calls, by parameter (some refused by the route's validation, and not run). */
function queryValues(spec: ParameterSpec): string[] {
  switch (spec.kind) {
    case 'int': return spec.name === 'limit' ? ['1', '3', '100', '101'] : ['2', '30', '9999999999999'];
    case 'bool': return ['true', 'false', 'yes'];
    case 'literal': return [...spec.values];
    case 'text': return spec.name === 'image_version' ? [demo.deployments[0]!.image_version, 'none'] : ['prod', '%', 'API', ''];
    case 'enum-list': return [spec.values[0]!, `${spec.values[1]},${spec.values[2]}`, ''];
    case 'uuid-list': return spec.name === 'tag_value_ids'
      ? [demo.tags[0]!.values[0]!.id, `${demo.tags[0]!.values[0]!.id},${demo.tags[0]!.values[1]!.id},${demo.tags[1]!.values[0]!.id}`]
      : [`${ACME_DEPLOYMENT},${demo.deployments[3]!.id},${GLOBEX_DEPLOYMENT}`, demo.deployments[7]!.id.toUpperCase()];
    default: return [];
  }
}

/**
 * A route's variables for realistic calls, made by the route's own parsing and variables(): each combination of
 * path values without query parameters; the first, and some others at random, also with each query parameter
 * alone and with random combinations of them. Calls the route's validation refuses are left out (never run).
 */
function restCalls(route: RestRoute, random: ReturnType<typeof seeded>): Variables[] {
  const pathSpecs = route.parameters.filter((spec) => spec.in === 'path');
  const querySpecs = route.parameters.filter((spec) => spec.in === 'query');
  let paths: Record<string, string>[] = [{}];
  for (const spec of pathSpecs) paths = paths.flatMap((p) => PATH_VALUES[spec.name]!.map((value) => ({ ...p, [spec.name]: value })));
  const queries: URLSearchParams[] = [new URLSearchParams()];
  for (const spec of querySpecs) for (const value of queryValues(spec)) queries.push(new URLSearchParams({ [spec.name]: value }));
  for (let i = 0; i < 2 * querySpecs.length; i++) {
    queries.push(new URLSearchParams(querySpecs.filter(() => random.next() < 0.4).map((spec) => [spec.name, random.pick(queryValues(spec))])));
  }
  const calls: Variables[] = [];
  for (const path of paths) {
    // Every path with the plain call, and the query parameters with a few of the paths.
    for (const query of path === paths[0] || random.next() < 0.3 ? queries : queries.slice(0, 1)) {
      const parsed = parseParameters(route.parameters, query, path);
      if (parsed.ok) calls.push(route.variables!({ values: parsed.values, path }, undefined));
    }
  }
  return [...new Map(calls.map((variables) => [JSON.stringify(variables), variables])).values()];
}

function restDocuments(): CorpusEntry[] {
  const random = seeded(5);
  // The GET routes: a corpus is run more than once, on data a write or a data plane's report would change (and
  // it calls routes with their parameters, not with a body).
  return REST_ROUTES.filter((route) => (route.method ?? 'GET') === 'GET')
    .map((route) => ({ source: 'rest', origin: route.path, text: route.document!, variables: restCalls(route, random) }));
}

/** The example frontend's operations as it sends them: its trusted-documents manifest. */
function exampleDocuments(): CorpusEntry[] {
  const manifest = 'examples/frontend/src/gql/persisted-documents.json';
  const documents = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, manifest), 'utf8')) as Record<string, string>;
  return Object.values(documents).map((text) => ({ source: 'examples', origin: manifest, text }));
}

/**
 * GraphiQL's example query, alone and, as GraphiQL sends its whole editor, with the example frontend's detail
 * query pasted below it: each operation runs by its name.
 */
function graphiqlDocuments(): CorpusEntry[] {
  const detail = exampleDocuments().find((entry) => entry.text.includes('query DeploymentDetail'))!.text;
  return [EXAMPLE_QUERY, `${EXAMPLE_QUERY}\n${detail}`].map((text) => ({ source: 'graphiql', origin: 'src/graphql/graphiql.ts', text }));
}

/**
 * The queries in the curl examples of the README and docs/ (`"query":"..."` in a JSON body). A REST log
 * route's body has a `query` too (a search text): only a text that opens as a GraphQL document is taken.
 */
function docsDocuments(): CorpusEntry[] {
  const files = ['README.md', 'examples/frontend/README.md', ...fs.readdirSync(path.join(PROJECT_ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
  return files.flatMap((file) => [...fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8').matchAll(/"query":("(?:[^"\\]|\\.)*")/g)]
    .map((match) => ({ source: 'docs' as const, origin: file, text: JSON.parse(match[1]!) as string }))
    .filter((entry) => /^\s*(\{|query\b|mutation\b|subscription\b|fragment\b)/.test(entry.text)));
}

const objectType = (name: string) => schema.getType(name) as GraphQLObjectType;

/** The fullest selection of every type (select-everything.ts), where clients reach it; and random partial selections. */
function builderDocuments(): CorpusEntry[] {
  const deployment = selectEverything(objectType('Deployment'));
  const repository = selectEverything(objectType('Repository'));
  const nodeTypes = Object.values(schema.getTypeMap()).filter((type) => isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node'));
  const documents = [
    `query EveryField($limit: Int!, $filter: DeploymentFilter) { deployments(limit: $limit, filter: $filter) { offset hasNextPage totalCount resources ${deployment} } }`,
    `query EveryFieldByCursor($first: Int, $after: String, $filter: DeploymentFilter) { deploymentsConnection(first: $first, after: $after, filter: $filter) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node ${deployment} } } }`,
    `query EveryFieldById($id: ID!) { deployment(id: $id) ${deployment} }`,
    `query EveryRepositoryField($id: ID!) { repositories(integrationId: $id) ${repository} managed: managedRepositories(integrationId: $id) ${repository} }`,
    // One type a document: fields of the same name differ in type between the node types.
    ...nodeTypes.map((type) => `query Every${type.name}Field($id: ID!) { node(id: $id) { __typename ... on ${type.name} ${selectEverything(type as GraphQLObjectType)} } }`),
    `{ tenant ${selectEverything(objectType('Tenant'))} tagKeys ${selectEverything(objectType('TagKey'))} integrations ${selectEverything(objectType('Integration'))} }`,
  ];
  // As the projection tests make them (test/graphql-projection.test.ts), from a fixed seed.
  const partial = (type: string, listing: (selection: string) => string, variables: string[], runs: number, seed: number) =>
    fc.sample(fc.tuple(treeOf(objectType(type)), printings, fc.boolean()), { numRuns: runs, seed }).map(([tree, form, skipOne]) => {
      const shown: Printing = { ...form, skipped: skipOne ? [...tree.keys()][0] : undefined };
      return partialDocument(tree, shown, type, listing, variables);
    });
  documents.push(
    ...partial('Deployment', deploymentListing('page'), [], 8, 1),
    ...partial('Deployment', deploymentListing('connection'), [], 8, 2),
    ...partial('Repository', (selection) => `repositories(integrationId: $id) { ${selection} }`, ['$id: ID!'], 6, 3),
  );
  return documents.map((text) => ({ source: 'builders', origin: 'test/support builders', text }));
}

/** The whole corpus, in source order; a text found in several sources is in each. */
export async function operationCorpus(): Promise<CorpusEntry[]> {
  // Not the corpus's own test: its set-up query is no test's document.
  const inTests = (await documentsInTests(['compiled-operations.test.ts'])).map(({ file, text }): CorpusEntry => ({ source: 'tests', origin: `test/${file}`, text }));
  // Reads only: the corpus runs each document more than once, on data a mutation would change.
  return [
    ...restDocuments(), ...exampleDocuments(), ...graphiqlDocuments(), ...docsDocuments(), ...inTests, ...builderDocuments(),
  ].filter((entry) => !writes(entry.text));
}

/** Whether a document holds a mutation (one that does not parse is kept: the corpus compares its errors). */
function writes(text: string): boolean {
  try {
    return parse(text).definitions.some((definition) => definition.kind === Kind.OPERATION_DEFINITION && definition.operation === 'mutation');
  } catch {
    return false;
  }
}
