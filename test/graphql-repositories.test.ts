// Repository listings over GraphQL (docs/decisions.md#repository-listing): `repositories` for code-host
// integrations, `managedRepositories` for managed ones, `integrations(kind:)`. Expectations are derived from
// the import documents (the shared fixture plus REPOSITORIES_DOCUMENT), never written out field by field.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, ACME_DEPLOYMENT, ACME_INTEGRATION, GLOBEX, GLOBEX_INTEGRATION, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { dataOf, expectGraphQLError, fixtureDocument, handMadeGlobalId, importExtra, type DocIntegration } from './support/graphql-expect.ts';
import {
  ACME_EMPTY, ACME_MANAGED, ACME_ORDERING, ORDERING_EXPECTED_IDS, REPOSITORIES_DOCUMENT, REPOSITORY_FIELDS, expectedListing,
} from './support/repository-data.ts';
import { createIcuTestDatabase, type CollatedDatabase } from './support/collated-database.ts';

const LIST = {
  codehost: `query($id: ID!) { list: repositories(integrationId: $id) { ${REPOSITORY_FIELDS} } }`,
  managed: `query($id: ID!) { list: managedRepositories(integrationId: $id) { ${REPOSITORY_FIELDS} } }`,
} as const;
const INTEGRATIONS = 'query($kind: IntegrationKind) { integrations(kind: $kind) { id uuid kind codehost name } }';

const ALL_INTEGRATIONS: DocIntegration[] = [...fixtureDocument().integrations!, ...REPOSITORIES_DOCUMENT.integrations!];
const integrationOf = (id: string) => ALL_INTEGRATIONS.find((i) => i.id === id)!;

describe('repository listings', () => {
  let db: TestDatabase;
  let app: RunningApp;
  let bothKey: string;
  /** Global ids of every integration, read from the API. */
  const globalIds = new Map<string, string>();

  const as = (tenant: string) => ({ 'X-Api-Key': bothKey, 'X-Tenant-Id': tenant });
  const list = (kind: 'codehost' | 'managed', id: string, tenant = ACME) => app.graphql(LIST[kind], as(tenant), { id });

  beforeAll(async () => {
    db = await createTestDatabase();
    const cipher = newCipher();
    await importFixture(db.orm.em.fork(), cipher);
    await importExtra(db.orm.em, cipher, REPOSITORIES_DOCUMENT);
    bothKey = await issueKey(db.orm.em, [ACME, GLOBEX]);
    app = await startApp(db.orm, cipher);
    for (const tenant of [ACME, GLOBEX]) {
      for (const { id, uuid } of dataOf(await app.graphql(INTEGRATIONS, as(tenant))).integrations) globalIds.set(uuid, id);
    }
  });
  afterAll(async () => {
    await app?.close();
    await db.drop();
  });

  describe('contents', () => {
    it('lists, for every integration of both kinds, exactly the repositories its document declares, with every field', async () => {
      let repositoriesSeen = { codehost: 0, managed: 0 };
      for (const integration of ALL_INTEGRATIONS) {
        const { list: found } = dataOf(await list(integration.kind, integration.id, integration.tenant_id));
        expect({ integration: integration.name, found }).toEqual({ integration: integration.name, found: expectedListing(integration) });
        repositoriesSeen = { ...repositoriesSeen, [integration.kind]: repositoriesSeen[integration.kind] + found.length };
      }
      expect(repositoriesSeen.codehost).toBeGreaterThan(2);
      expect(repositoriesSeen.managed).toBeGreaterThan(2);
    });

    it('returns an empty list for an integration without repositories', async () => {
      expect(dataOf(await list('codehost', ACME_EMPTY)).list).toEqual([]);
      expect(dataOf(await list('managed', GLOBEX_INTEGRATION, GLOBEX)).list).toEqual([]);
    });

    it('gives code-host ids past 2^31 (and up to 2^53-1) back exactly, as JSON numbers', async () => {
      const acme = dataOf(await list('codehost', ACME_INTEGRATION)).list.map((r: { codeHostId: number }) => r.codeHostId);
      const fixtureIds = integrationOf(ACME_INTEGRATION).repositories.map((r) => r.id);
      expect(fixtureIds.some((id) => id > 2 ** 31)).toBe(true);
      const numerically = (a: number, b: number) => a - b;
      expect(acme.toSorted(numerically)).toEqual(fixtureIds.toSorted(numerically));
      const managed = await app.graphql(LIST.managed, as(ACME), { id: ACME_MANAGED });
      expect(dataOf(managed).list.map((r: { codeHostId: number }) => r.codeHostId)).toContain(Number.MAX_SAFE_INTEGER);
      const raw = await (await fetch(`${app.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...as(ACME) },
        body: JSON.stringify({ query: LIST.managed, variables: { id: ACME_MANAGED } }),
      })).text();
      expect(raw).toContain('"codeHostId":9007199254740991');
    });

    it('gives each repository a global id that node(id:) resolves back to it', async () => {
      const query = `query($id: ID!) { repositories(integrationId: $id) { id codeHostId } }`;
      const listed = dataOf(await app.graphql(query, as(ACME), { id: ACME_ORDERING })).repositories as { id: string; codeHostId: number }[];
      expect(new Set(listed.map((r) => r.id)).size).toBe(listed.length);
      const { nodes } = dataOf(await app.graphql('query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Repository { codeHostId hostIntegrationId } } }',
        as(ACME), { ids: listed.map((r) => r.id) }));
      expect(nodes).toEqual(listed.map((r) => ({ ...r, hostIntegrationId: ACME_ORDERING })));
    });

    it('serves the same list through Integration.repositories', async () => {
      const query = `query($id: ID!) { node(id: $id) { ... on Integration { repositories { ${REPOSITORY_FIELDS} } } } }`;
      for (const id of [ACME_INTEGRATION, ACME_MANAGED, ACME_ORDERING]) {
        const { node } = dataOf(await app.graphql(query, as(ACME), { id: globalIds.get(id) }));
        expect(node.repositories).toEqual(expectedListing(integrationOf(id)));
      }
    });
  });

  describe('order', () => {
    it('orders by owner, then name, both case-insensitive, then by code-host id as a number', async () => {
      const { list: found } = dataOf(await list('codehost', ACME_ORDERING));
      expect(found.map((r: { codeHostId: number }) => r.codeHostId)).toEqual(ORDERING_EXPECTED_IDS);
      expect(found).toEqual(expectedListing(integrationOf(ACME_ORDERING)));
    });

    it('orders managed listings by the same rule', async () => {
      const { list: found } = dataOf(await list('managed', ACME_MANAGED));
      expect(found.map((r: { owner: string; name: string }) => `${r.owner}/${r.name}`)).toEqual(['acme/api', 'acme/Platform', 'Acme-Labs/docs']);
    });
  });

  describe('the integrationId argument', () => {
    it('accepts the raw UUID, in either case, and the global id, with the same result', async () => {
      for (const [kind, id] of [['codehost', ACME_INTEGRATION], ['managed', ACME_MANAGED]] as const) {
        const expected = expectedListing(integrationOf(id));
        for (const argument of [id, id.toUpperCase(), globalIds.get(id)!]) {
          expect({ argument, list: dataOf(await list(kind, argument)).list }).toEqual({ argument, list: expected });
        }
      }
    });

    it('answers NOT_FOUND for an integration of the other kind, in both directions, however it is named', async () => {
      for (const [kind, id] of [['codehost', ACME_MANAGED], ['managed', ACME_INTEGRATION], ['managed', ACME_EMPTY]] as const) {
        for (const argument of [id, id.toUpperCase(), globalIds.get(id)!]) {
          const error = expectGraphQLError(await list(kind, argument), 'NOT_FOUND');
          expect([`Integration ${id} not found.`, `Integration ${argument} not found.`]).toContain(error.message);
          expect(error.path).toEqual(['list']);
        }
      }
    });

    it('answers NOT_FOUND with the id for an unknown UUID or an unknown integration global id', async () => {
      const unknown = randomUUID();
      expectGraphQLError(await list('codehost', unknown), 'NOT_FOUND', `Integration ${unknown} not found.`);
      expectGraphQLError(await list('managed', unknown), 'NOT_FOUND', `Integration ${unknown} not found.`);
      const unknownGlobal = handMadeGlobalId('Integration', unknown);
      for (const kind of ['codehost', 'managed'] as const) {
        const error = expectGraphQLError(await list(kind, unknownGlobal), 'NOT_FOUND');
        expect([`Integration ${unknown} not found.`, `Integration ${unknownGlobal} not found.`]).toContain(error.message);
      }
    });

    it('answers NOT_FOUND for the id of another type of object, global or raw', async () => {
      const { deployments, tagKeys } = dataOf(await app.graphql('{ deployments { resources { id uuid } } tagKeys { id values { id } } }', as(ACME)));
      const deployment = deployments.resources.find((d: { uuid: string }) => d.uuid === ACME_DEPLOYMENT);
      const repository = dataOf(await app.graphql('query($id: ID!) { repositories(integrationId: $id) { id } }', as(ACME), { id: ACME_INTEGRATION }));
      const others = [deployment.id, tagKeys[0].id, tagKeys[0].values[0].id, repository.repositories[0].id, handMadeGlobalId('Integrations', ACME_INTEGRATION)];
      for (const kind of ['codehost', 'managed'] as const) {
        for (const argument of others) expectGraphQLError(await list(kind, argument), 'NOT_FOUND', /^Integration \S+ not found\.$/);
        expectGraphQLError(await list(kind, ACME_DEPLOYMENT), 'NOT_FOUND', `Integration ${ACME_DEPLOYMENT} not found.`);
      }
    });

    it('answers BAD_USER_INPUT, never an internal error, for an id that is neither a UUID nor a global id', async () => {
      const malformed = [
        '', ' ', 'not-a-uuid', `${ACME_INTEGRATION.slice(0, -1)}`, `${ACME_INTEGRATION}0`, ` ${ACME_INTEGRATION}`, `{${ACME_INTEGRATION}}`,
        `Integration:${ACME_INTEGRATION}`, handMadeGlobalId('Integration', 'not-a-uuid'), handMadeGlobalId('integration', ACME_INTEGRATION),
        '%%%', 'ü'.repeat(10), 'x'.repeat(5000),
      ];
      for (const kind of ['codehost', 'managed'] as const) {
        for (const argument of malformed) {
          const response = await list(kind, argument);
          expect(response.status).toBeLessThan(500);
          const error = expectGraphQLError(response, 'BAD_USER_INPUT', /integrationId/);
          expect(error.extensions.argument).toBe('integrationId');
          expect(error.message.length).toBeLessThan(300);
        }
      }
    });
  });

  describe('integrations(kind:)', () => {
    const expectedIntegrations = (tenant: string, kind?: 'codehost' | 'managed') => ALL_INTEGRATIONS
      .filter((i) => i.tenant_id === tenant && (!kind || i.kind === kind))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((i) => ({ id: globalIds.get(i.id), uuid: i.id, kind: i.kind.toUpperCase(), codehost: i.codehost, name: i.name }));

    it('lists the tenant\'s integrations by name, all of them or one kind', async () => {
      for (const tenant of [ACME, GLOBEX]) {
        for (const kind of [undefined, 'codehost', 'managed'] as const) {
          const { integrations } = dataOf(await app.graphql(INTEGRATIONS, as(tenant), { kind: kind?.toUpperCase() }));
          expect({ tenant, kind, integrations }).toEqual({ tenant, kind, integrations: expectedIntegrations(tenant, kind) });
        }
      }
      expect(expectedIntegrations(ACME, 'codehost').length).toBeGreaterThan(1);
      expect(expectedIntegrations(ACME, 'managed').length).toBeGreaterThan(0);
    });

    it('gives global ids that are distinct from the raw UUIDs and resolve back through node(id:)', async () => {
      const { integrations } = dataOf(await app.graphql(INTEGRATIONS, as(ACME)));
      for (const { id, uuid, name } of integrations) {
        expect(id).not.toBe(uuid);
        const { node } = dataOf(await app.graphql('query($id: ID!) { node(id: $id) { ... on Integration { uuid name } } }', as(ACME), { id }));
        expect(node).toEqual({ uuid, name });
      }
    });

    it('gives each integration its installation id (null when the document had none) and filters by code host and installation', async () => {
      const query = 'query($kind: IntegrationKind, $codehost: String, $installed: Boolean) { integrations(kind: $kind, codehost: $codehost, installed: $installed) { uuid installationId } }';
      const expected = (tenant: string, keep: (i: DocIntegration & { installation_id?: number }) => boolean) => ALL_INTEGRATIONS
        .filter((i) => i.tenant_id === tenant && keep(i))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((i: DocIntegration & { installation_id?: number }) => ({ uuid: i.id, installationId: i.installation_id ?? null }));
      const cases: [Record<string, unknown>, (i: DocIntegration & { installation_id?: number }) => boolean][] = [
        [{}, () => true],
        [{ codehost: 'github' }, (i) => i.codehost === 'github'],
        [{ codehost: 'gitlab', kind: 'CODEHOST' }, (i) => i.codehost === 'gitlab' && i.kind === 'codehost'],
        [{ installed: true }, (i) => i.installation_id != null],
        [{ installed: false, kind: 'MANAGED' }, (i) => i.installation_id == null && i.kind === 'managed'],
        [{ codehost: 'nowhere' }, () => false],
        [{ codehost: 'git\u0000hub' }, () => false],
      ];
      for (const tenant of [ACME, GLOBEX]) {
        for (const [variables, keep] of cases) {
          const { integrations } = dataOf(await app.graphql(query, as(tenant), variables));
          expect({ tenant, variables, integrations }).toEqual({ tenant, variables, integrations: expected(tenant, keep) });
        }
      }
      expect(expected(ACME, (i) => i.installation_id != null)).toEqual([{ uuid: ACME_INTEGRATION, installationId: 52001234 }]);
    });

    it('rejects a kind that is not in the enum', async () => {
      const { body } = await app.graphql('{ integrations(kind: GITHUB) { id } }', as(ACME));
      expect(body.errors?.[0]?.message).toMatch(/GITHUB/);
      expect(body.data ?? null).toBeNull();
    });
  });
});

// Production servers usually have a linguistic default collation (en_US.UTF-8, ICU), not the C collation of
// the embedded test server. The listing order is part of the interface (docs/decisions.md#ordering), so it
// must not change with it.
describe('repository order on a database with a linguistic collation', () => {
  let db: CollatedDatabase | null;
  let app: RunningApp;
  let key: string;

  beforeAll(async () => {
    db = await createIcuTestDatabase('en-US');
    if (!db) return;
    const cipher = newCipher();
    await importFixture(db.orm.em.fork(), cipher);
    await importExtra(db.orm.em, cipher, REPOSITORIES_DOCUMENT);
    key = await issueKey(db.orm.em, [ACME]);
    app = await startApp(db.orm, cipher);
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('is the same order as on a C-collated database', async (context) => {
    if (!db) return context.skip('the PostgreSQL server has no ICU support');
    const { list: found } = dataOf(await app.graphql(LIST.codehost, { 'X-Api-Key': key }, { id: ACME_ORDERING }));
    expect(found.map((r: { codeHostId: number }) => r.codeHostId)).toEqual(ORDERING_EXPECTED_IDS);
  });
});
