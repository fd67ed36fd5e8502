// Listings read only the columns a selection needs (projection pushdown), and a user notices nothing but the
// speed: any selection returns exactly what the same fields of a full read return, through fragments, aliases
// and @include/@skip; secret values stay masked without the scope; another tenant's rows stay out; and a light
// page does not read the jsonb columns at all.
import fc from 'fast-check';
import { getNamedType, isLeafType, isObjectType, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoDocument, DEMO_TENANT_ID } from '../src/demo/demo-dataset.ts';
import { schema } from '../src/graphql/schema.ts';
import { importDocument } from '../src/import/importer.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { selectEverything } from './support/select-everything.ts';
import { ACME, fixtureText, GLOBEX, issueKey, newCipher } from './support/fixtures.ts';
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

async function query(text: string, key = secretsKey, variables?: Record<string, unknown>) {
  const { status, body } = await app.graphql(text, { 'x-api-key': key }, variables);
  expect(body.errors, text).toBeUndefined();
  expect(status).toBe(200);
  return body.data;
}

/** A selection: field name to its subselection (null for a leaf). */
type Tree = Map<string, Tree | null>;

/**
 * Random selections of a type's fields, nested objects included (no type twice on a path); as the full read
 * (selectEverything), only fields that need no argument.
 */
function treeOf(type: GraphQLObjectType, path: string[] = []): fc.Arbitrary<Tree> {
  const fields = Object.values(type.getFields()).filter((field) => {
    if (field.args.some((arg) => arg.type.toString().endsWith('!'))) return false;
    const named = getNamedType(field.type);
    return isLeafType(named) || (isObjectType(named) && !path.includes(named.name) && path.length < 2);
  });
  return fc.subarray(fields, { minLength: 1 }).chain((chosen) => fc.tuple(...chosen.map((field) => {
    const named = getNamedType(field.type);
    return isLeafType(named) ? fc.constant([field.name, null] as const) : treeOf(named as GraphQLObjectType, [...path, type.name]).map((sub) => [field.name, sub] as const);
  })).map((entries) => new Map(entries)));
}

interface Printing { aliases: boolean; fragment: 'none' | 'inline' | 'named'; skipped?: string }

/** Aliased (`aliases`): the first few top-level fields (the documents' alias limit is 15). */
const aliased = (printing: Printing, depth: number, index: number) => printing.aliases && depth === 0 && index < 5;

/** `skipped`: that top-level field twice, once with @skip(if: true), once with @include(if: false). */
function print(tree: Tree, printing: Printing, depth = 0): string {
  return [...tree].map(([name, sub], index) => {
    const alias = aliased(printing, depth, index) ? `a_${name}: ` : '';
    const selection = sub ? ` { ${print(sub, printing, depth + 1)} }` : '';
    if (depth > 0 || printing.skipped !== name) return `${alias}${name}${selection}`;
    return `${alias}${name} @skip(if: $yes)${selection} ${alias}${name} @include(if: $no)${selection}`;
  }).join(' ');
}

/** The fields of `tree` taken from a full result (aliases renamed), as the partial query must return them. */
function project(value: unknown, tree: Tree, printing: Printing, depth = 0): unknown {
  if (value === null) return null;
  if (Array.isArray(value)) return value.map((item) => project(item, tree, printing, depth));
  const object = value as Record<string, unknown>;
  return Object.fromEntries([...tree]
    .map(([name, sub], index) => [aliased(printing, depth, index) ? `a_${name}` : name, sub ? project(object[name], sub, printing, depth + 1) : object[name], name] as const)
    .filter(([, , name]) => !(depth === 0 && printing.skipped === name))
    .map(([key, value]) => [key, value]));
}

function document(tree: Tree, printing: Printing, list: 'page' | 'connection'): string {
  const body = print(tree, printing);
  const selection = printing.fragment === 'inline' ? `... on Deployment { ${body} }` : printing.fragment === 'named' ? '...Chosen' : body;
  const fragment = printing.fragment === 'named' ? `fragment Chosen on Deployment { ${body} }` : '';
  const listing = list === 'page'
    ? `deployments(limit: 100) { resources { ${selection} } }`
    : `deploymentsConnection(first: 100) { edges { node { ${selection} } } }`;
  const variables = printing.skipped ? '($yes: Boolean!, $no: Boolean!)' : '';
  return `query Partial${variables} { ${listing} } ${fragment}`;
}

describe('a partial selection', () => {
  let full: unknown[];
  beforeAll(async () => {
    full = (await query(`{ deployments(limit: 100) { resources ${selectEverything(DEPLOYMENT)} } }`)).deployments.resources;
    expect(full.length).toBeGreaterThan(50);
  });

  it('returns exactly the same fields of a full read, on both listings, whatever the selection and its form', { timeout: 120_000 }, async () => {
    const printing = fc.record({
      aliases: fc.boolean(),
      fragment: fc.constantFrom('none', 'inline', 'named') as fc.Arbitrary<Printing['fragment']>,
    });
    await fc.assert(fc.asyncProperty(treeOf(DEPLOYMENT), printing, fc.boolean(), fc.constantFrom('page', 'connection') as fc.Arbitrary<'page' | 'connection'>,
      async (tree, form, skipOne, list) => {
        const shown: Printing = { ...form, skipped: skipOne ? [...tree.keys()][0] : undefined };
        const data = await query(document(tree, shown, list), secretsKey, shown.skipped ? { yes: true, no: false } : undefined);
        const items = list === 'page' ? data.deployments.resources : data.deploymentsConnection.edges.map((edge: { node: unknown }) => edge.node);
        expect(items).toEqual(project(full, tree, shown));
      }), { numRuns: 60 });
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

  it('reads no jsonb column for a light page, and only the one asked for otherwise', async () => {
    const light = await pageStatement('uuid name status');
    for (const column of JSONB_COLUMNS) expect(light).not.toContain(`"${column}"`);
    // Two numbers of the resource spec: those two keys of its column, not the 3.6 KB object.
    const withSpec = await pageStatement('uuid sourceConfig { resourceSpec { cpu memoryMb } }');
    expect(withSpec).toContain("jsonb_build_object('cpu', e.resource_spec->'cpu', 'memory_mb', e.resource_spec->'memory_mb')");
    expect(withSpec).not.toContain('"e"."resource_spec"');
    expect(withSpec).not.toContain('source_config');
    // The guard of the guard: the full record reads them all.
    const everything = await pageStatement(selectEverything(DEPLOYMENT).slice(1, -1));
    for (const column of JSONB_COLUMNS) expect(everything).toContain(`"${column}"`);
  });
});
