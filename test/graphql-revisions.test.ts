// A deployment by id and its revisions over GraphQL (docs/graphql.md#queries, docs/decisions.md#revisions):
// `deployment(id)`, `Deployment.revision(id)`, the offset pages and the Relay connection walked end to end in
// both directions with filters, the same answers as REST for the same data, and another tenant's ids, global
// ids of other types and malformed ids. Expected lists come from the import documents (support/revision-data.ts).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from './support/app-server.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME, ACME_DEPLOYMENT, GLOBEX, GLOBEX_DEPLOYMENT, newCipher } from './support/fixtures.ts';
import { dataOf, handMadeGlobalId, importExtra } from './support/graphql-expect.ts';
import { GLOBEX_APP, GLOBEX_APP_REVISIONS, HISTORY_APP, HISTORY_REVISIONS, QUIET_APP, REVISIONS_DOCUMENT, expectedHistory } from './support/revision-data.ts';

const REVISION = 'uuid createdAt updatedAt status source sourceRevisionConfig { repoRef graphConfigPath imageUri sourceTarballPath repoCommitSha }';
const DEPLOYMENT = 'query($id: ID!) { deployment(id: $id) { id uuid name } }';
const PAGE = `query($id: ID!, $filter: RevisionFilter, $limit: Int! = 20, $offset: Int! = 0) { deployment(id: $id) {
  revisionPage(filter: $filter, limit: $limit, offset: $offset) { resources { ${REVISION} } offset hasNextPage totalCount } } }`;
const CONNECTION = `query($id: ID!, $filter: RevisionFilter, $first: Int, $after: String, $last: Int, $before: String) { deployment(id: $id) {
  revisionsConnection(filter: $filter, first: $first, after: $after, last: $last, before: $before) {
    edges { cursor node { uuid } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount } } }`;
const ONE = `query($id: ID!, $revision: ID!) { deployment(id: $id) { revision(id: $revision) { id uuid remoteReconciled deployment { uuid } } } }`;
const CHECKOUT_DEPLOYED = '66666666-6666-4666-8666-666666666661';

/** A GraphQL revision in the REST record's shape: the keys of docs/legacy-api.md#revision-record. */
const asLegacy = (r: any) => ({
  id: r.uuid, created_at: r.createdAt, updated_at: r.updatedAt, status: r.status, source: r.source.toLowerCase(),
  source_revision_config: { repo_ref: r.sourceRevisionConfig.repoRef, graph_config_path: r.sourceRevisionConfig.graphConfigPath,
    image_uri: r.sourceRevisionConfig.imageUri, source_tarball_path: r.sourceRevisionConfig.sourceTarballPath, repo_commit_sha: r.sourceRevisionConfig.repoCommitSha },
});
const ids = (list: { id: string }[]) => list.map((r) => r.id);
/** One BAD_USER_INPUT naming `argument`; the nullable field it was given to is null (GraphQL's error propagation). */
function expectBadArgument(response: { status: number; body: any }, argument: string) {
  expect(response.status).toBeLessThan(500);
  expect(response.body.errors?.map((e: any) => ({ code: e.extensions?.code, argument: e.extensions?.argument })), JSON.stringify(response.body))
    .toEqual([{ code: 'BAD_USER_INPUT', argument }]);
}

describe('GraphQL: a deployment by id and its revisions', () => {
  let fixture: FixtureApp<'acme' | 'both'>;
  let app: RunningApp;
  const asAcme = (query: string, variables: Record<string, unknown>) => app.graphql(query, { 'x-api-key': fixture.keys.acme }, variables);
  const acme = async (query: string, variables: Record<string, unknown>) => dataOf(await asAcme(query, variables));
  const asGlobex = (query: string, variables: Record<string, unknown>) => app.graphql(query, { 'x-api-key': fixture.keys.both, 'x-tenant-id': GLOBEX }, variables);

  beforeAll(async () => {
    fixture = await startFixtureApp([REVISIONS_DOCUMENT], { acme: { tenants: [ACME] }, both: { tenants: [ACME, GLOBEX] } });
    app = fixture.app;
  });
  afterAll(() => fixture?.close());

  describe('deployment(id)', () => {
    it('finds a deployment by raw UUID (any case) or global id, as node(id) does', async () => {
      const { deployment } = await acme(DEPLOYMENT, { id: ACME_DEPLOYMENT.toUpperCase() });
      expect(deployment).toMatchObject({ uuid: ACME_DEPLOYMENT, name: 'checkout-prod' });
      expect((await acme(DEPLOYMENT, { id: deployment.id })).deployment).toEqual(deployment);
      expect((await acme('query($id: ID!) { node(id: $id) { ... on Deployment { id uuid name } } }', { id: deployment.id })).node).toEqual(deployment);
    });

    it('is null for an unknown id, another tenant\'s (raw or global) and a global id of another type', async () => {
      const { deployment: globex } = dataOf(await asGlobex(DEPLOYMENT, { id: GLOBEX_DEPLOYMENT }));
      expect(globex).toMatchObject({ uuid: GLOBEX_DEPLOYMENT });
      for (const id of [randomUUID(), GLOBEX_DEPLOYMENT, GLOBEX_APP, globex.id, handMadeGlobalId('Revision', ACME_DEPLOYMENT), handMadeGlobalId('Integration', ACME_DEPLOYMENT)]) {
        expect({ id, deployment: (await acme(DEPLOYMENT, { id })).deployment }).toEqual({ id, deployment: null });
      }
    });

    it('answers BAD_USER_INPUT for a malformed id, never an internal error', async () => {
      for (const id of ['', 'nope', `${ACME_DEPLOYMENT}0`, handMadeGlobalId('Deployment', 'not-a-uuid'), 'x'.repeat(3000)]) {
        const response = await asAcme(DEPLOYMENT, { id });
        expectBadArgument(response, 'id');
        expect(response.body.data).toEqual({ deployment: null });
      }
    });
  });

  describe('a revision\'s fields and Deployment.revision(id)', () => {
    it('carries every field of the original\'s record, with the defaults for one imported in the older format', async () => {
      const query = `query($id: ID!, $a: ID!, $b: ID!) { deployment(id: $id) { a: revision(id: $a) { ${REVISION} remoteReconciled } b: revision(id: $b) { ${REVISION} remoteReconciled } } }`;
      const { deployment } = await acme(query, { id: HISTORY_APP, a: HISTORY_REVISIONS[0]!.id, b: HISTORY_REVISIONS[1]!.id });
      expect(deployment.a).toEqual({
        uuid: HISTORY_REVISIONS[0]!.id, createdAt: '2026-04-01T08:00:00.000Z', updatedAt: '2026-04-01T08:00:00.000Z', status: 'CREATING',
        source: 'INTERNAL_DOCKER', remoteReconciled: false,
        sourceRevisionConfig: { repoRef: null, graphConfigPath: null, imageUri: null, sourceTarballPath: null, repoCommitSha: null },
      });
      expect(deployment.b).toEqual({
        uuid: HISTORY_REVISIONS[1]!.id, createdAt: '2026-04-01T08:00:00.000Z', updatedAt: '2026-04-01T08:00:30.001Z', status: 'QUEUED',
        source: 'INTERNAL_DOCKER', remoteReconciled: true,
        sourceRevisionConfig: { repoRef: null, graphConfigPath: null, imageUri: 'registry.example.com/acme/history:1', sourceTarballPath: null, repoCommitSha: null },
      });
    });

    it('finds only the deployment\'s own revisions, by raw UUID or global id', async () => {
      const own = (await acme(ONE, { id: ACME_DEPLOYMENT, revision: CHECKOUT_DEPLOYED })).deployment.revision;
      expect(own).toMatchObject({ uuid: CHECKOUT_DEPLOYED, remoteReconciled: false, deployment: { uuid: ACME_DEPLOYMENT } });
      expect((await acme(ONE, { id: ACME_DEPLOYMENT, revision: own.id })).deployment.revision).toEqual(own);
      const { node: globexRevision } = dataOf(await asGlobex('query($id: ID!) { node(id: $id) { id } }', { id: handMadeGlobalId('Revision', GLOBEX_APP_REVISIONS[0]!) }));
      expect(globexRevision).not.toBeNull();
      for (const revision of [CHECKOUT_DEPLOYED, own.id, GLOBEX_APP_REVISIONS[0]!, globexRevision.id, randomUUID(), handMadeGlobalId('Deployment', CHECKOUT_DEPLOYED)]) {
        expect({ revision, found: (await acme(ONE, { id: HISTORY_APP, revision })).deployment.revision }).toEqual({ revision, found: null });
      }
      expectBadArgument(await asAcme(ONE, { id: HISTORY_APP, revision: 'nope' }), 'id');
    });
  });

  describe('revisionPage', () => {
    it('walks every page with the offset it returns, newest first, ties by id, and counts the total', async () => {
      for (const filter of [undefined, { statuses: ['CREATING', 'DEPLOYED', 'UNKNOWN'] }, { remoteReconciled: false }, { statuses: [], remoteReconciled: true }]) {
        const expected = expectedHistory({ statuses: filter?.statuses?.length ? filter.statuses : undefined, remoteReconciled: filter?.remoteReconciled });
        const seen: unknown[] = [];
        let offset = 0;
        for (;;) {
          const page = (await acme(PAGE, { id: HISTORY_APP, filter, limit: 4, offset })).deployment.revisionPage;
          seen.push(...page.resources.map(asLegacy));
          expect(page).toMatchObject({ offset: offset + page.resources.length, hasNextPage: seen.length < expected.length, totalCount: expected.length });
          if (!page.hasNextPage) break;
          offset = page.offset;
        }
        expect({ filter, seen }).toEqual({ filter, seen: expected });
      }
    });

    it('answers BAD_USER_INPUT for a page size or offset out of range', async () => {
      for (const [variables, argument] of [[{ limit: 0 }, 'limit'], [{ limit: 101 }, 'limit'], [{ offset: -1 }, 'offset']] as const) {
        expectBadArgument(await asAcme(PAGE, { id: HISTORY_APP, ...variables }), argument);
      }
    });
  });

  describe('revisionsConnection', () => {
    const connection = async (variables: Record<string, unknown>) => (await acme(CONNECTION, { id: HISTORY_APP, ...variables })).deployment.revisionsConnection;
    const uuids = (c: { edges: { node: { uuid: string } }[] }) => c.edges.map((e) => e.node.uuid);

    it('walks forwards with first/after and backwards with last/before, in both cases the whole list once', async () => {
      for (const filter of [undefined, { statuses: ['QUEUED', 'BUILDING', 'DEPLOYING', 'SKIPPED', 'INTERRUPTED'] }, { remoteReconciled: true }]) {
        const expected = ids(expectedHistory(filter ?? {}));
        const forwards: string[] = [];
        let after: string | undefined;
        for (let page = 0; ; page++) {
          const c = await connection({ filter, first: 3, after });
          forwards.push(...uuids(c));
          expect(c.totalCount).toBe(expected.length);
          expect(c.pageInfo.hasPreviousPage).toBe(page > 0);
          if (!c.pageInfo.hasNextPage) break;
          after = c.pageInfo.endCursor;
        }
        const backwards: string[] = [];
        let before: string | undefined;
        for (let page = 0; ; page++) {
          const c = await connection({ filter, last: 3, before });
          backwards.unshift(...uuids(c));
          expect(c.pageInfo.hasNextPage).toBe(page > 0);
          if (!c.pageInfo.hasPreviousPage) break;
          before = c.pageInfo.startCursor;
        }
        expect({ filter, forwards, backwards }).toEqual({ filter, forwards: expected, backwards: expected });
      }
    });

    it('keeps a cursor\'s place when older revisions are added', async () => {
      const first = await connection({ first: 2 });
      const laterPage = await connection({ first: 2, after: first.pageInfo.endCursor });
      await importExtra(fixture.db.orm.em, newCipher(), { deployments: [{ ...REVISIONS_DOCUMENT.deployments![0]!, revisions: [
        ...HISTORY_REVISIONS, { id: 'aaaaaaaa-2000-4000-8000-999999999999', status: 'QUEUED', created_at: '2026-03-01T00:00:00Z' },
      ] }] });
      expect(await connection({ first: 2, after: first.pageInfo.endCursor })).toMatchObject({ edges: laterPage.edges, totalCount: 26 });
    });

    it('is empty for a deployment without revisions, and refuses a cursor of another list or both first and last', async () => {
      expect((await acme(CONNECTION, { id: QUIET_APP })).deployment.revisionsConnection).toEqual({
        edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null }, totalCount: 0,
      });
      const deploymentCursor = dataOf(await asAcme('{ deploymentsConnection(first: 1) { edges { cursor } } }', {})).deploymentsConnection.edges[0].cursor;
      for (const [variables, argument] of [[{ after: deploymentCursor }, 'after'], [{ before: 'nope' }, 'before'], [{ first: 1, last: 1 }, 'last'], [{ first: 0 }, 'first']] as const) {
        expectBadArgument(await asAcme(CONNECTION, { id: HISTORY_APP, ...variables }), argument);
      }
    });
  });

  it('gives the same revisions as REST, and the deployment\'s plain list only its own tenant\'s', async () => {
    const query = `query($id: ID!) { deployment(id: $id) { revisions { uuid } revisionsConnection(first: 100) { edges { node { ${REVISION} } } } } }`;
    for (const id of [ACME_DEPLOYMENT, HISTORY_APP, QUIET_APP]) {
      const { deployment } = await acme(query, { id });
      const rest = await (await fetch(`${app.url}/v2/deployments/${id}/revisions?limit=100`, { headers: { 'x-api-key': fixture.keys.acme } })).json();
      const graphql = deployment.revisionsConnection.edges.map((e: { node: unknown }) => asLegacy(e.node));
      expect({ id, graphql }).toEqual({ id, graphql: rest.resources });
      expect(deployment.revisions.map((r: { uuid: string }) => r.uuid)).toEqual(ids(rest.resources));
    }
    expect((await acme(query, { id: GLOBEX_APP })).deployment).toBeNull();
  });
});
