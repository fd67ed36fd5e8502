// Listings read only the columns a selection needs (projection pushdown), and a user notices nothing but the
// speed: any selection returns exactly what the same fields of a full read return, through fragments, aliases
// and @include/@skip; secret values stay masked without the scope; another tenant's rows stay out; and a light
// page does not read the jsonb columns at all.
import fc from 'fast-check';
import type { GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoDocument, DEMO_TENANT_ID } from '../src/demo/demo-dataset.ts';
import { schema } from '../src/graphql/schema.ts';
import { importDocument } from '../src/import/importer.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { selectEverything } from './support/select-everything.ts';
import { deploymentListing, partialDocument, printings, project, skipVariables, treeOf, type Printing } from './support/generated-selections.ts';
import { ACME, fixtureText, GLOBEX, issueKey, newCipher } from './support/fixtures.ts';
import { expectGraphQLError } from './support/graphql-expect.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
let app: RunningApp;
let secretsKey: string;
let plainKey: string;
let otherTenantKey: string;
let statements: string[] = [];

const DEPLOYMENT = schema.getType('Deployment') as GraphQLObjectType;
const JSONB_COLUMNS = ['source_config', 'resource_spec', 'source_revision_config'];

beforeAll(async () => {
  db = await createTestDatabase({ onQuery: (sql) => statements.push(sql) });
  const cipher = newCipher();
  await importDocument(db.orm.em.fork(), JSON.stringify(buildDemoDocument()), cipher);
  await importDocument(db.orm.em.fork(), fixtureText(), cipher);
  secretsKey = await issueKey(db.orm.em, [DEMO_TENANT_ID], true);
  plainKey = await issueKey(db.orm.em, [DEMO_TENANT_ID], false);
  otherTenantKey = await issueKey(db.orm.em, [ACME], true);
  app = await startApp(db.orm, cipher);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

async function query(text: string, key = secretsKey, variables?: Record<string, unknown>): Promise<any> {
  const { status, body } = await app.graphql(text, { 'x-api-key': key }, variables);
  expect(body.errors, text).toBeUndefined();
  expect(status).toBe(200);
  return body.data;
}

describe('a partial selection', () => {
  let full: unknown[];
  beforeAll(async () => {
    full = (await query(`{ deployments(limit: 100) { resources ${selectEverything(DEPLOYMENT)} } }`)).deployments.resources;
    expect(full.length).toBeGreaterThan(50);
  });

  it('returns exactly the same fields of a full read, on both listings, whatever the selection and its form', { timeout: 120_000 }, async () => {
    await fc.assert(fc.asyncProperty(treeOf(DEPLOYMENT), printings, fc.boolean(), fc.constantFrom('page', 'connection') as fc.Arbitrary<'page' | 'connection'>,
      async (tree, form, skipOne, list) => {
        const shown: Printing = { ...form, skipped: skipOne ? [...tree.keys()][0] : undefined };
        const data = await query(partialDocument(tree, shown, 'Deployment', deploymentListing(list)), secretsKey, skipVariables(shown));
        const items = list === 'page' ? data.deployments.resources : data.deploymentsConnection.edges.map((edge: { node: unknown }) => edge.node);
        expect(items).toEqual(project(full, tree, shown));
      }), { numRuns: 60 });
  });

  it('answers one document as its variables ask, whichever @include or @skip they turned on before', async () => {
    // What a selection reads is worked out once per document, unless variables decide it (selected-columns.ts).
    const document = `query ($spec: Boolean!, $noSecrets: Boolean!) { deployments(limit: 100) { resources {
      uuid sourceConfig @include(if: $spec) { resourceSpec { cpu memoryMb } } secrets @skip(if: $noSecrets) { name value } } } }`;
    type Full = { uuid: string; sourceConfig: { resourceSpec: { cpu: number; memoryMb: number } | null }; secrets: unknown[] };
    const expected = (spec: boolean, noSecrets: boolean) => (full as Full[]).map(({ uuid, sourceConfig: { resourceSpec }, secrets }) => ({
      uuid,
      ...(spec && { sourceConfig: { resourceSpec: resourceSpec && { cpu: resourceSpec.cpu, memoryMb: resourceSpec.memoryMb } } }),
      ...(!noSecrets && { secrets }),
    }));
    for (const [spec, noSecrets] of [[false, true], [true, false], [false, false], [true, true]] as const) {
      expect((await query(document, secretsKey, { spec, noSecrets })).deployments.resources, `spec ${spec}, noSecrets ${noSecrets}`).toEqual(expected(spec, noSecrets));
    }
    expect((full as Full[]).some((deployment) => deployment.sourceConfig.resourceSpec !== null && deployment.secrets.length > 0)).toBe(true);
  });

  it('keeps secret values masked without the read-secrets scope', async () => {
    const page = (await query('{ deployments(limit: 100) { resources { name secrets { name value } } } }', plainKey)).deployments.resources;
    const secrets = page.flatMap((d: { secrets: { value: string | null }[] }) => d.secrets);
    expect(secrets.length).toBeGreaterThan(0);
    expect(secrets.every((s: { value: string | null }) => s.value === null)).toBe(true);
  });

  it('reads only the caller\'s tenant', async () => {
    const ids = (rows: { uuid: string }[]) => rows.map((row) => row.uuid);
    const demo = ids((await query('{ deployments(limit: 100) { resources { uuid } } }')).deployments.resources);
    const acme = ids((await query('{ deployments(limit: 100) { resources { uuid } } }', otherTenantKey)).deployments.resources);
    const acmeFull = ids((await query(`{ deployments(limit: 100) { resources { uuid sourceConfig { repoUrl } } } }`, otherTenantKey)).deployments.resources);
    expect(acme).toEqual(acmeFull);
    expect(acme.length).toBeGreaterThan(0);
    expect(acme.filter((id) => demo.includes(id))).toEqual([]);
  });

  it('tells a missing resource spec from a present one when none of its keys is selected', async () => {
    const globexKey = await issueKey(db.orm.em, [GLOBEX], false);
    const present: boolean[] = [];
    for (const key of [secretsKey, globexKey]) {
      const spec = (d: { sourceConfig: { resourceSpec: unknown } }) => d.sourceConfig.resourceSpec !== null;
      const partial = (await query('{ deployments(limit: 100) { resources { sourceConfig { resourceSpec { __typename } } } } }', key)).deployments.resources.map(spec);
      const whole = (await query(`{ deployments(limit: 100) { resources ${selectEverything(DEPLOYMENT)} } }`, key)).deployments.resources.map(spec);
      expect(partial).toEqual(whole);
      present.push(...partial);
    }
    // Both cases occur (GLOBEX's deployment has none), or this would prove nothing.
    expect(new Set(present)).toEqual(new Set([true, false]));
  });
});

describe('the statement of a page', () => {
  const pageStatement = async (selection: string) => {
    statements = [];
    await query(`{ deployments(limit: 20) { resources { ${selection} } } }`);
    const page = statements.filter((sql) => /from "deployment"/.test(sql) && /limit/.test(sql));
    expect(page).toHaveLength(1);
    return page[0]!;
  };

  it('reads no jsonb column for a light page, and only the ones (or their keys) asked for otherwise', async () => {
    const light = await pageStatement('uuid name status');
    for (const column of JSONB_COLUMNS) expect(light).not.toContain(`"${column}"`);
    // Two numbers of the resource spec: those two keys of its column, not the 3.6 KB object.
    const withSpec = await pageStatement('uuid sourceConfig { resourceSpec { cpu memoryMb } }');
    expect(withSpec).toContain("jsonb_build_object('cpu', e.resource_spec->'cpu', 'memory_mb', e.resource_spec->'memory_mb')");
    expect(withSpec).not.toContain('"e"."resource_spec"');
    expect(withSpec).not.toContain('source_config');
    // A deployment's integration: the one key of its source config that names it.
    const withIntegration = await pageStatement('uuid integration { name }');
    expect(withIntegration).toContain("jsonb_build_object('integration_id', e.source_config->'integration_id')");
    expect(withIntegration).not.toContain('"e"."source_config"');
    // The guard of the guard: the full record reads them all.
    const everything = await pageStatement(selectEverything(DEPLOYMENT).slice(1, -1));
    for (const column of JSONB_COLUMNS) expect(everything).toContain(`"${column}"`);
  });
});

describe('a partial selection of repositories', () => {
  const REPOSITORY = schema.getType('Repository') as GraphQLObjectType;
  const everyField = selectEverything(REPOSITORY);
  /** The three listings of repositories: of a code-host integration, of a managed one, and nested in the integrations. */
  type Listing = { field: 'repositories' | 'managedRepositories'; id: string } | { field: 'nested' };
  const listingOf = (listing: Listing) => (selection: string) => (listing.field === 'nested'
    ? `integrations { repositories { ${selection} } }`
    : `${listing.field}(integrationId: $id) { ${selection} }`);
  const variablesOf = (listing: Listing): [string[], Record<string, unknown>] => (listing.field === 'nested' ? [[], {}] : [['$id: ID!'], { id: listing.id }]);
  const itemsOf = (listing: Listing, data: any): unknown[] => (listing.field === 'nested'
    ? data.integrations.flatMap((integration: { repositories: unknown[] }) => integration.repositories)
    : data[listing.field]);
  const read = async (listing: Listing, selection: string, key = secretsKey) => {
    const [definitions, variables] = variablesOf(listing);
    const header = definitions.length > 0 ? `(${definitions.join(', ')})` : '';
    return itemsOf(listing, await query(`query${header} { ${listingOf(listing)(selection)} }`, key, variables));
  };

  let listings: Listing[];
  const full = new Map<Listing, unknown[]>();
  beforeAll(async () => {
    const integrations: { uuid: string; kind: string }[] = (await query('{ integrations { uuid kind } }')).integrations;
    listings = [
      ...integrations.map((integration): Listing => ({ field: integration.kind === 'CODEHOST' ? 'repositories' : 'managedRepositories', id: integration.uuid })),
      { field: 'nested' },
    ];
    for (const listing of listings) full.set(listing, await read(listing, everyField.slice(1, -1)));
    // Both kinds of integration, each with repositories, or the comparison would prove little.
    expect(new Set(listings.filter((listing) => full.get(listing)!.length > 1).map((listing) => listing.field)))
      .toEqual(new Set(['repositories', 'managedRepositories', 'nested']));
  });

  it('returns exactly the same fields of a full read, on every listing, whatever the selection and its form', { timeout: 120_000 }, async () => {
    await fc.assert(fc.asyncProperty(treeOf(REPOSITORY), printings, fc.boolean(), fc.nat(),
      async (tree, form, skipOne, pick) => {
        const listing = listings[pick % listings.length]!;
        const shown: Printing = { ...form, skipped: skipOne ? [...tree.keys()][0] : undefined };
        const [definitions, variables] = variablesOf(listing);
        const data = await query(partialDocument(tree, shown, 'Repository', listingOf(listing), definitions), secretsKey, { ...variables, ...skipVariables(shown) });
        expect(itemsOf(listing, data)).toEqual(project(full.get(listing), tree, shown));
      }), { numRuns: 60 });
  });

  it('reads for each place what it asks for, when a fragment spread in two places is merged with more in one', async () => {
    // What a selection reads is worked out once per document and field node (selected-columns.ts), and a fragment's
    // nodes are shared by every place it is spread: here merged with another fragment's in one place, not in the other.
    const listing = listings.find((candidate) => candidate.field === 'repositories' && full.get(candidate)!.length > 1) as { id: string };
    const { id } = (await query('{ integrations { id uuid } }')).integrations.find((integration: { uuid: string }) => integration.uuid === listing.id);
    const expected = (full.get(listing as Listing) as { name: string; url: string }[]).map(({ name, url }) => ({ name, url }));
    const names = expected.map(({ name }) => ({ name }));
    // Each place merged in turn (whichever runs first works it out), each document twice (the second time, what
    // the first worked out is there to be misused).
    for (const merged of ['node', 'integrations']) {
      const more = (place: string) => (place === merged ? '...U' : '');
      const document = `fragment R on Integration { repositories { name } } fragment U on Integration { repositories { url } }
        query ($id: ID!) { node(id: $id) { ... on Integration { ${more('node')} ...R } } integrations { uuid ${more('integrations')} ...R } }`;
      for (let run = 0; run < 2; run++) {
        const data = await query(document, secretsKey, { id });
        const listed = data.integrations.find((integration: { uuid: string }) => integration.uuid === listing.id).repositories;
        expect([data.node.repositories, listed], `merged in ${merged}, run ${run}`)
          .toEqual(merged === 'node' ? [expected, names] : [names, expected]);
      }
    }
  });

  it('reads only the selected columns, and the id and integration every listing reads', async () => {
    const listing = listings.find((candidate) => candidate.field === 'repositories')!;
    const selectedColumnsOf = async (selection: string) => {
      statements = [];
      await read(listing, selection);
      const reads = statements.filter((sql) => /from "source_repository"/.test(sql));
      expect(reads).toHaveLength(1);
      return reads[0]!.slice('select '.length, reads[0]!.indexOf(' from '));
    };
    expect(await selectedColumnsOf('name')).toBe('"e"."id", "e"."integration_id", "e"."name"');
    expect(await selectedColumnsOf('url a: name __typename')).toBe('"e"."id", "e"."integration_id", "e"."name", "e"."url"');
    // The guard of the guard: every field reads every column a repository shows (as REST's full record does).
    expect(await selectedColumnsOf(everyField.slice(1, -1)))
      .toBe('"e"."id", "e"."integration_id", "e"."code_host_id", "e"."default_branch", "e"."name", "e"."owner", "e"."url"');
  });

  it("answers another tenant's integration as it does a full read: not found, whatever the selection", async () => {
    for (const listing of listings) {
      if (listing.field === 'nested') continue;
      for (const selection of ['name', 'url owner', everyField.slice(1, -1)]) {
        const response = await app.graphql(`query($id: ID!) { ${listing.field}(integrationId: $id) { ${selection} } }`, { 'x-api-key': otherTenantKey }, { id: listing.id });
        expectGraphQLError(response, 'NOT_FOUND', `Integration ${listing.id} not found.`);
      }
    }
    // The other tenant's own listings, partial and full, hold its repositories only.
    const demoUrls = new Set(full.get(listings.at(-1)!)!.map((repository) => (repository as { url: string }).url));
    const nested: Listing = { field: 'nested' };
    const acmeFull = await read(nested, everyField.slice(1, -1), otherTenantKey);
    const acmePartial = await read(nested, 'url', otherTenantKey);
    expect(acmePartial).toEqual(acmeFull.map((repository) => ({ url: (repository as { url: string }).url })));
    expect(acmePartial.length).toBeGreaterThan(0);
    expect(acmePartial.filter((repository) => demoUrls.has((repository as { url: string }).url))).toEqual([]);
  });
});
