// No N+1: a page that selects every nested field of a deployment costs the same number of SQL statements
// whatever its size, because nested relations load in batches through the request's loaders.
import { randomUUID } from 'node:crypto';
import type { GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoDocument, DEMO_TENANT_ID } from '../src/demo/demo-dataset.ts';
import { schema } from '../src/graphql/schema.ts';
import { importDocument } from '../src/import/importer.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { selectEverything } from './support/select-everything.ts';
import { issueKey, newCipher } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
let app: RunningApp;
let key: string;
let statements: string[] = [];

/** The demo data twice over (fresh ids), so a 100-item page exists; every deployment has nested data. */
function twoDemoDocuments() {
  const document = buildDemoDocument();
  const copies = document.deployments.map((deployment, index) => ({
    ...deployment,
    id: randomUUID(),
    name: `${deployment.name}-copy`,
    created_at: new Date(Date.parse(deployment.created_at) + 1000 + index).toISOString(),
    revisions: deployment.revisions.map((revision) => ({ ...revision, id: randomUUID() })),
  }));
  return { ...document, deployments: [...document.deployments, ...copies] };
}

beforeAll(async () => {
  db = await createTestDatabase({ onQuery: (sql) => statements.push(sql) });
  const cipher = newCipher();
  await importDocument(db.orm.em.fork(), JSON.stringify(twoDemoDocuments()), cipher);
  key = await issueKey(db.orm.em, [DEMO_TENANT_ID], true);
  app = await startApp(db.orm, cipher);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

async function statementsFor(query: string, variables: Record<string, unknown>) {
  statements = [];
  const { body } = await app.graphql(query, { 'x-api-key': key }, variables);
  expect(body.errors).toBeUndefined();
  return { body, count: statements.length };
}

describe('SQL statements per deployments page', () => {
  const deployment = selectEverything(schema.getType('Deployment') as GraphQLObjectType);

  it('selects nested data through every relation of a deployment', () => {
    for (const field of ['secrets', 'secretReferences', 'revisions', 'revisionsConnection', 'latestRevision', 'activeRevision', 'tagValues', 'integration', 'resourceSpec', 'sidecars', 'volumeMounts']) {
      expect(deployment).toContain(`${field} {`);
    }
  });

  it('is the same for 10, 50 and 100 items (offset pages)', async () => {
    const query = `query($limit: Int!) { deployments(limit: $limit) { offset hasNextPage totalCount resources ${deployment} } }`;
    const counts = [];
    for (const limit of [10, 50, 100]) {
      const { body, count } = await statementsFor(query, { limit });
      expect(body.data.deployments.resources).toHaveLength(limit);
      counts.push(count);
    }
    const page = (await statementsFor(query, { limit: 100 })).body.data.deployments.resources;
    // The page really reaches nested rows, so the constant count is not an artefact of empty relations.
    expect(page.some((d: any) => d.secrets.length > 0 && d.revisions.length > 1 && d.tagValues.length > 1 && d.integration)).toBe(true);
    expect(counts).toEqual([counts[0], counts[0], counts[0]]);
    // authentication (1) + page + count + one batch per relation (and the revisions connection's count), nothing per item
    expect(counts[0]).toBeLessThanOrEqual(16);
  });

  it('reads a page\'s secrets and secret references in one statement, with the values revealed or not', async () => {
    const secretStatements = () => statements.filter((sql) => /\bfrom secret\b/.test(sql)).length;
    for (const selection of ['secrets { name value } secretReferences { name }', 'secretReferences { name } secrets { name value }', 'secrets { name } secretReferences { name }']) {
      const { body } = await statementsFor(`{ deployments(limit: 100) { resources { ${selection} } } }`, {});
      expect(body.data.deployments.resources.some((d: any) => d.secrets.some((s: any) => typeof s.value === 'string') && d.secretReferences.length > 0)
        || !selection.includes('value')).toBe(true);
      expect(secretStatements(), selection).toBe(1);
    }
    statements = [];
    const rest = await fetch(`${app.url}/v2/deployments?limit=100`, { headers: { 'x-api-key': key } });
    expect(rest.status).toBe(200);
    expect((await rest.json()).resources.some((d: any) => d.secrets.some((s: any) => s.value !== '********'))).toBe(true);
    expect(secretStatements()).toBe(1);
  });

  it('is the same for 10, 50 and 100 items (connection)', async () => {
    const query = `query($first: Int!) { deploymentsConnection(first: $first) { totalCount edges { cursor node ${deployment} } } }`;
    const counts = [];
    for (const first of [10, 50, 100]) {
      const { body, count } = await statementsFor(query, { first });
      expect(body.data.deploymentsConnection.edges).toHaveLength(first);
      counts.push(count);
    }
    expect(counts).toEqual([counts[0], counts[0], counts[0]]);
  });

  it('is the same for 10, 50 and 100 items when each shows a slice of its revisions by offset, by cursor or by id', async () => {
    const revision = 'uuid status source updatedAt remoteReconciled sourceRevisionConfig { repoRef imageUri }';
    const query = `query($limit: Int!, $cursor: String!, $revision: ID!) { deployments(limit: $limit) { resources {
      revisionPage(limit: 1, offset: 1, filter: { statuses: [DEPLOYED, BUILDING, QUEUED], remoteReconciled: false }) { resources { ${revision} } hasNextPage totalCount }
      older: revisionsConnection(first: 1, after: $cursor) { edges { cursor node { ${revision} } } pageInfo { hasNextPage hasPreviousPage } totalCount }
      newer: revisionsConnection(last: 2, before: $cursor, filter: { remoteReconciled: true }) { edges { node { uuid } } pageInfo { hasPreviousPage hasNextPage } }
      revision(id: $revision) { uuid }
    } } }`;
    const first = (await statementsFor('{ deployments(limit: 1) { resources { revisionsConnection(first: 1) { edges { cursor node { uuid } } } } } }', {}))
      .body.data.deployments.resources[0].revisionsConnection.edges[0];
    const counts = [];
    for (const limit of [10, 50, 100]) {
      const { body, count } = await statementsFor(query, { limit, cursor: first.cursor, revision: first.node.uuid });
      expect(body.data.deployments.resources).toHaveLength(limit);
      counts.push(count);
    }
    const page = (await statementsFor(query, { limit: 100, cursor: first.cursor, revision: first.node.uuid })).body.data.deployments.resources;
    expect(page.some((d: any) => d.revisionPage.resources.length > 0 && d.older.edges.length > 0)).toBe(true);
    expect(counts).toEqual([counts[0], counts[0], counts[0]]);
  });
});

describe('SQL statements of relations and repository listings', () => {
  const repository = selectEverything(schema.getType('Repository') as GraphQLObjectType);
  const sizes = [1, 20, 60];
  const integrationIds = sizes.map(() => randomUUID());

  beforeAll(async () => {
    const integrations = sizes.map((size, index) => ({
      id: integrationIds[index], tenant_id: DEMO_TENANT_ID, kind: 'codehost', codehost: 'github', name: `sized-${size}`,
      repositories: Array.from({ length: size }, (_, n) => ({
        id: 900_000 + index * 1000 + n, owner: 'sized', name: `repo-${n}`, url: `https://git.example/sized/repo-${n}`, default_branch: 'main',
      })),
    }));
    await importDocument(db.orm.em.fork(), JSON.stringify({ integrations }), newCipher());
  });

  it('lists 1, 20 or 60 repositories with every field in the same statements', async () => {
    const counts = [];
    for (const [index, id] of integrationIds.entries()) {
      const { body, count } = await statementsFor(`query($id: ID!) { repositories(integrationId: $id) ${repository} }`, { id });
      expect(body.data.repositories).toHaveLength(sizes[index]!);
      counts.push(count);
    }
    // authentication (1), the integration, its repositories; each repository's integration is the one already read
    expect(counts).toEqual([3, 3, 3]);
  });

  it('lists the repositories of every integration in one statement', async () => {
    const { body, count } = await statementsFor(`{ integrations { uuid repositories ${repository} } }`, {});
    expect(body.data.integrations.filter((integration: { repositories: unknown[] }) => integration.repositories.length > 1).length).toBeGreaterThan(2);
    // authentication, the integrations, their repositories
    expect(count).toBe(3);
  });

  it('reads the tags and integrations of 10, 50 or 100 deployments in the same statements', async () => {
    const query = `query($limit: Int!) { deployments(limit: $limit) { resources {
      uuid tagValues { uuid value tagKey { key values { uuid value } } } integration { uuid name repositories { name url } }
    } } }`;
    const counts = [];
    for (const limit of [10, 50, 100]) {
      const { body, count } = await statementsFor(query, { limit });
      const page = body.data.deployments.resources;
      expect(page).toHaveLength(limit);
      expect(page.filter((d: any) => d.tagValues.length > 1 && d.integration?.repositories.length > 1).length).toBeGreaterThan(limit / 10);
      counts.push(count);
    }
    // authentication, the page, its tag values, their keys, the keys' values, the integrations, their repositories
    expect(counts).toEqual([7, 7, 7]);
  });
});
