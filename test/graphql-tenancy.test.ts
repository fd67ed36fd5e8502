// Tenant isolation over GraphQL (docs/decisions.md#tenant-isolation: "Another tenant's objects are
// indistinguishable from objects that do not exist"). The ids of GLOBEX's objects are read from the API with a
// key that may see GLOBEX, then used from ACME: every entry point (node, nodes, listings, filters, nested
// fields) must hide them.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, ACME_DEPLOYMENT, GLOBEX, GLOBEX_DEPLOYMENT, GLOBEX_INTEGRATION, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { dataOf, expectGraphQLError, handMadeGlobalId, importExtra } from './support/graphql-expect.ts';
import { ACME_DANGLING, GLOBEX_CHECKOUT, GLOBEX_CODEHOST, GLOBEX_ENV_PROD, TENANCY_DOCUMENT, tenantContents } from './support/tenancy-data.ts';

interface Found { typename: string; id: string; uuid?: string }

const COLLECT = `{
  tenant { id }
  integrations { id uuid repositories { id } }
  tagKeys { id uuid values { id uuid } }
  deployments(limit: 100) { resources { id uuid revisions { id uuid } } }
}`;
const NODE_FIELDS = `__typename id
  ... on Deployment { uuid tenantId } ... on Integration { uuid } ... on Repository { hostIntegrationId }
  ... on Revision { uuid deployment { uuid } } ... on TagKey { uuid } ... on TagValue { uuid } ... on Tenant { name }`;
const NODE = `query($id: ID!) { node(id: $id) { ${NODE_FIELDS} } }`;
const NODES = `query($ids: [ID!]!) { nodes(ids: $ids) { ${NODE_FIELDS} } }`;
const LIST_IDS = `query($filter: DeploymentFilter) {
  deployments(limit: 100, filter: $filter) { totalCount resources { uuid } }
  deploymentsConnection(first: 100, filter: $filter) { totalCount edges { node { uuid } } }
}`;

describe('tenant isolation', () => {
  let db: TestDatabase;
  let app: RunningApp;
  let acmeKey: string;
  let acmeSecretsKey: string;
  let bothKey: string;
  let bothSecretsKey: string;
  let acme: Found[];
  let globex: Found[];

  const h = (key: string, tenant?: string) => ({ 'X-Api-Key': key, ...(tenant ? { 'X-Tenant-Id': tenant } : {}) });
  const asAcme = (query: string, variables?: Record<string, unknown>) => app.graphql(query, h(acmeKey), variables);
  const ofType = (found: Found[], typename: string) => found.filter((f) => f.typename === typename);

  async function collect(headers: Record<string, string>): Promise<Found[]> {
    const data = dataOf(await app.graphql(COLLECT, headers));
    const deployments = data.deployments.resources;
    return [
      { typename: 'Tenant', id: data.tenant.id },
      ...data.integrations.map((i: Found) => ({ typename: 'Integration', id: i.id, uuid: i.uuid })),
      ...data.integrations.flatMap((i: { repositories: Found[] }) => i.repositories.map((r) => ({ typename: 'Repository', id: r.id }))),
      ...data.tagKeys.map((k: Found) => ({ typename: 'TagKey', id: k.id, uuid: k.uuid })),
      ...data.tagKeys.flatMap((k: { values: Found[] }) => k.values.map((v) => ({ typename: 'TagValue', id: v.id, uuid: v.uuid }))),
      ...deployments.map((d: Found) => ({ typename: 'Deployment', id: d.id, uuid: d.uuid })),
      ...deployments.flatMap((d: { revisions: Found[] }) => d.revisions.map((r) => ({ typename: 'Revision', id: r.id, uuid: r.uuid }))),
    ];
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    const cipher = newCipher();
    await importFixture(db.orm.em.fork(), cipher);
    await importExtra(db.orm.em, cipher, TENANCY_DOCUMENT);
    acmeKey = await issueKey(db.orm.em, [ACME]);
    acmeSecretsKey = await issueKey(db.orm.em, [ACME], true);
    bothKey = await issueKey(db.orm.em, [ACME, GLOBEX]);
    bothSecretsKey = await issueKey(db.orm.em, [ACME, GLOBEX], true);
    app = await startApp(db.orm, cipher);
    acme = await collect(h(acmeKey));
    globex = await collect(h(bothKey, GLOBEX));
  });
  afterAll(async () => {
    await app?.close();
    await db.drop();
  });

  it('has collected GLOBEX objects of every node type, exactly those its documents declare', () => {
    for (const typename of ['Tenant', 'Integration', 'Repository', 'TagKey', 'TagValue', 'Deployment', 'Revision']) {
      expect({ typename, count: ofType(globex, typename).length }).not.toEqual({ typename, count: 0 });
    }
    const expected = tenantContents(GLOBEX);
    expect(ofType(globex, 'Deployment').map((d) => d.uuid).toSorted()).toEqual(expected.deploymentIds.toSorted());
    expect(ofType(globex, 'TagValue').map((d) => d.uuid).toSorted()).toEqual(expected.tagValueIds.toSorted());
    expect(ofType(globex, 'Revision').map((d) => d.uuid).toSorted()).toEqual(expected.revisionIds.toSorted());
    expect(ofType(globex, 'Integration').map((d) => d.uuid).toSorted()).toEqual(expected.integrationIds.toSorted());
  });

  describe('node and nodes', () => {
    it('finds every object of the own tenant by its global id, as the right object', async () => {
      for (const found of acme) {
        const { node } = dataOf(await asAcme(NODE, { id: found.id }));
        expect(node).toMatchObject({ __typename: found.typename, id: found.id, ...(found.uuid ? { uuid: found.uuid } : {}) });
      }
      const { node: tenant } = dataOf(await asAcme(NODE, { id: ofType(acme, 'Tenant')[0]!.id }));
      expect(tenant.name).toBe('acme');
      const { node: deployment } = dataOf(await asAcme(NODE, { id: ofType(acme, 'Deployment').find((d) => d.uuid === ACME_DEPLOYMENT)!.id }));
      expect(deployment.tenantId).toBe(ACME);
    });

    it('returns null for GLOBEX objects of every type, which the same ids find for GLOBEX', async () => {
      for (const found of globex) {
        expect({ found, node: dataOf(await asAcme(NODE, { id: found.id })).node }).toEqual({ found, node: null });
        expect(dataOf(await app.graphql(NODE, h(bothKey, ACME), { id: found.id })).node).toBeNull();
        expect(dataOf(await app.graphql(NODE, h(bothKey, GLOBEX), { id: found.id })).node).toMatchObject({ id: found.id });
      }
      const { nodes } = dataOf(await asAcme(NODES, { ids: globex.map((f) => f.id) }));
      expect(nodes).toEqual(globex.map(() => null));
    });

    it('keeps the order of nodes(ids:), with null for unknown and foreign ids, and repeats duplicates', async () => {
      const [deployment, tagValue, integration] = ['Deployment', 'TagValue', 'Integration'].map((t) => ofType(acme, t)[0]!);
      const ids = [deployment!.id, handMadeGlobalId('Deployment', randomUUID()), tagValue!.id, ofType(globex, 'Deployment')[0]!.id,
        integration!.id, deployment!.id, handMadeGlobalId('TagKey', randomUUID())];
      const { nodes } = dataOf(await asAcme(NODES, { ids }));
      expect(nodes.map((n: { __typename: string; id: string } | null) => n && { typename: n.__typename, id: n.id }))
        .toEqual([deployment, null, tagValue, null, integration, deployment, null].map((f) => f && { typename: f.typename, id: f.id }));
    });

    it('resolves the same id asked twice in one request (node and nodes, or two aliases)', async () => {
      const twice = 'query($id: ID!) { a: node(id: $id) { id } b: nodes(ids: [$id]) { id } c: node(id: $id) { id } }';
      const answers = [];
      for (const { typename, id } of acme) answers.push({ typename, body: (await asAcme(twice, { id })).body });
      expect(answers).toEqual(acme.map(({ typename, id }) => ({ typename, body: { data: { a: { id }, b: [{ id }], c: { id } } } })));
    });

    it('returns null for a well-formed global id of a type that is no node, or of the wrong type for the UUID', async () => {
      const ids = ['Query', 'SourceConfig', 'Secret', 'Node', 'PageInfo', 'DeploymentConnection', 'NoSuchType']
        .map((typename) => handMadeGlobalId(typename, ACME_DEPLOYMENT))
        .concat(handMadeGlobalId('Integration', ACME_DEPLOYMENT), handMadeGlobalId('Revision', ACME_DEPLOYMENT), handMadeGlobalId('Tenant', GLOBEX));
      for (const id of ids) expect({ id, node: dataOf(await asAcme(NODE, { id })).node }).toEqual({ id, node: null });
      const own = ofType(acme, 'Deployment')[0]!.id;
      expect(dataOf(await asAcme(NODES, { ids: [own, ...ids, own] })).nodes.map((n: Found | null) => n?.id ?? null))
        .toEqual([own, ...ids.map(() => null), own]);
    });

    it('answers BAD_USER_INPUT, never an internal error, for a malformed global id', async () => {
      const malformed = ['', 'abc', ACME_DEPLOYMENT, `Deployment:${ACME_DEPLOYMENT}`, handMadeGlobalId('Deployment', 'not-a-uuid'),
        handMadeGlobalId('deployment', ACME_DEPLOYMENT), handMadeGlobalId('Deployment', ''), 'ü', '%%%', 'x'.repeat(5000)];
      const own = ofType(acme, 'Deployment')[0]!.id;
      for (const id of malformed) {
        for (const response of [await asAcme(NODE, { id }), await asAcme(NODES, { ids: [own, id] })]) {
          expect(response.status).toBeLessThan(500);
          expect(response.body.errors?.map((e: { extensions: { code: string } }) => e.extensions.code), id.slice(0, 40)).toEqual(['BAD_USER_INPUT']);
        }
      }
    });
  });

  describe('repository listings', () => {
    // The error with the id replaced by a placeholder, so an unknown id and another tenant's can be compared.
    const shapeOf = (body: object, ...ids: string[]) => JSON.parse(ids.reduce((text, id) => text.replaceAll(id, '<id>'), JSON.stringify(body)));

    it('answers NOT_FOUND for GLOBEX integrations, raw or global, exactly as for an unknown id', async () => {
      const cases = [['repositories', GLOBEX_CODEHOST], ['managedRepositories', GLOBEX_INTEGRATION]] as const;
      for (const [field, uuid] of cases) {
        const query = `query($id: ID!) { ${field}(integrationId: $id) { codeHostId } }`;
        const globalId = ofType(globex, 'Integration').find((i) => i.uuid === uuid)!.id;
        const unknown = randomUUID();
        const unknownGlobal = handMadeGlobalId('Integration', unknown);
        const raw = await asAcme(query, { id: uuid });
        const unknownRaw = await asAcme(query, { id: unknown });
        expectGraphQLError(raw, 'NOT_FOUND', `Integration ${uuid} not found.`);
        expectGraphQLError(unknownRaw, 'NOT_FOUND', `Integration ${unknown} not found.`);
        expect(shapeOf(raw.body, uuid)).toEqual(shapeOf(unknownRaw.body, unknown));
        const global = await asAcme(query, { id: globalId });
        const unknownGlobalResponse = await asAcme(query, { id: unknownGlobal });
        expectGraphQLError(global, 'NOT_FOUND');
        expect(shapeOf(global.body, globalId, uuid)).toEqual(shapeOf(unknownGlobalResponse.body, unknownGlobal, unknown));
        expect([raw.status, global.status]).toEqual([unknownRaw.status, unknownGlobalResponse.status]);
        // GLOBEX itself can list it, so the NOT_FOUND above is the tenant boundary and nothing else.
        expect(dataOf(await app.graphql(query, h(bothKey, GLOBEX), { id: globalId }))[field]).toBeInstanceOf(Array);
      }
    });
  });

  describe('deployment lists', () => {
    const uuidsOf = (data: any) => ({
      page: data.deployments.resources.map((d: { uuid: string }) => d.uuid).toSorted(),
      pageTotal: data.deployments.totalCount,
      connection: data.deploymentsConnection.edges.map((e: { node: { uuid: string } }) => e.node.uuid).toSorted(),
      connectionTotal: data.deploymentsConnection.totalCount,
    });
    const listed = async (filter?: object) => uuidsOf(dataOf(await asAcme(LIST_IDS, { filter })));
    const only = (...ids: string[]) => ({ page: ids.toSorted(), pageTotal: ids.length, connection: ids.toSorted(), connectionTotal: ids.length });

    it('lists exactly ACME\'s deployments without a filter', async () => {
      expect(await listed()).toEqual(only(...tenantContents(ACME).deploymentIds));
    });

    it('finds nothing for GLOBEX deployment ids, raw or global, and drops them from a mixed list', async () => {
      const globalIds = ofType(globex, 'Deployment').map((d) => d.id);
      for (const ids of [[GLOBEX_DEPLOYMENT], [GLOBEX_CHECKOUT.toUpperCase()], globalIds]) expect(await listed({ ids })).toEqual(only());
      const own = ofType(acme, 'Deployment').find((d) => d.uuid === ACME_DEPLOYMENT)!.id;
      expect(await listed({ ids: [GLOBEX_DEPLOYMENT, own, ...globalIds, GLOBEX_CHECKOUT] })).toEqual(only(ACME_DEPLOYMENT));
    });

    it('treats GLOBEX tag values, raw or global, exactly like unknown ones', async () => {
      const acmeProd = tenantContents(ACME).tagValueIds[0]!;
      const globexIds = ofType(globex, 'TagValue');
      expect((await listed({ tagValueIds: [acmeProd] })).page).toContain(ACME_DEPLOYMENT);
      for (const value of [GLOBEX_ENV_PROD, ...globexIds.map((v) => v.id), ...globexIds.map((v) => v.uuid!)]) {
        expect(await listed({ tagValueIds: [value] })).toEqual(only());
        expect(await listed({ tagValueIds: [acmeProd, value] })).toEqual(await listed({ tagValueIds: [acmeProd, randomUUID()] }));
      }
    });

    it('matches text filters against ACME\'s deployments only, though GLOBEX has the same name and image version', async () => {
      expect(await listed({ nameContains: 'checkout' })).toEqual(only(ACME_DEPLOYMENT));
      expect(await listed({ imageVersion: '1.4.2' })).toEqual(only(ACME_DEPLOYMENT));
    });
  });

  describe('nested fields', () => {
    const NESTED = `{ deployments(limit: 100) { resources {
      uuid tenantId integration { uuid repositories { url } } tagValues { uuid tagKey { uuid key } }
      revisions { uuid deployment { uuid } } latestRevisionId latestRevision { uuid } activeRevision { uuid }
    } } tagKeys { key values { uuid } } integrations { uuid repositories { url } } }`;

    it('never leads from an ACME object to a GLOBEX one', async () => {
      const own = tenantContents(ACME);
      const data = dataOf(await asAcme(NESTED));
      for (const d of data.deployments.resources) {
        const doc = own.deployments.find((x) => x.id === d.uuid)!;
        const ownRevision = (id?: string | null) => (id && own.revisionIds.includes(id) ? { uuid: id } : null);
        expect(d.tenantId).toBe(ACME);
        expect(d.integration?.uuid ?? null).toBe(doc.source_config.integration_id ?? null);
        for (const r of d.integration?.repositories ?? []) expect(own.repositoryUrls).toContain(r.url);
        expect(d.tagValues.map((v: { uuid: string }) => v.uuid).toSorted()).toEqual((doc.tag_value_ids ?? []).toSorted());
        for (const v of d.tagValues) expect(ofType(acme, 'TagKey').map((k) => k.uuid)).toContain(v.tagKey.uuid);
        expect(d.revisions).toEqual((doc.revisions ?? []).toSorted((a, b) => b.created_at.localeCompare(a.created_at))
          .map((r) => ({ uuid: r.id, deployment: { uuid: d.uuid } })));
        expect([d.latestRevision, d.activeRevision]).toEqual([ownRevision(doc.latest_revision_id), ownRevision(doc.active_revision_id)]);
      }
      const dangling = data.deployments.resources.find((d: { uuid: string }) => d.uuid === ACME_DANGLING);
      expect(dangling).toMatchObject({ latestRevisionId: TENANCY_DOCUMENT.deployments![1]!.latest_revision_id, latestRevision: null, activeRevision: null });
      expect(data.tagKeys.map((k: { key: string }) => k.key)).toEqual(own.tagKeys.toSorted());
      expect(data.tagKeys.flatMap((k: { values: { uuid: string }[] }) => k.values.map((v) => v.uuid)).toSorted()).toEqual(own.tagValueIds.toSorted());
      expect(data.integrations.map((i: { uuid: string }) => i.uuid).toSorted()).toEqual(own.integrationIds.toSorted());
      expect(data.integrations.flatMap((i: { repositories: { url: string }[] }) => i.repositories.map((r) => r.url)).toSorted())
        .toEqual(own.repositoryUrls.toSorted());
    });
  });

  describe('choosing the tenant', () => {
    it('refuses X-Tenant-Id GLOBEX with an ACME-only key, whatever the query', async () => {
      for (const query of [COLLECT, `{ node(id: "${ofType(globex, 'Deployment')[0]!.id}") { id } }`, `{ repositories(integrationId: "${GLOBEX_CODEHOST}") { url } }`]) {
        const response = await app.graphql(query, h(acmeKey, GLOBEX));
        expect(response.status).toBe(403);
        expectGraphQLError(response, 'FORBIDDEN', `Tenant ${GLOBEX} is not accessible with this API key`);
      }
    });

    it('shows a two-tenant key each tenant only under its own X-Tenant-Id', async () => {
      for (const [tenant, other] of [[ACME, globex], [GLOBEX, acme]] as const) {
        const seen = await collect(h(bothKey, tenant));
        const expected = tenantContents(tenant);
        expect(ofType(seen, 'Deployment').map((d) => d.uuid).toSorted()).toEqual(expected.deploymentIds.toSorted());
        expect(ofType(seen, 'Integration').map((d) => d.uuid).toSorted()).toEqual(expected.integrationIds.toSorted());
        const { nodes } = dataOf(await app.graphql(NODES, h(bothKey, tenant), { ids: other.map((f) => f.id) }));
        expect(nodes).toEqual(other.map(() => null));
      }
    });
  });

  describe('secret values', () => {
    // Every way to a deployment; `nodes` in a request of its own (see 'resolves the same id asked twice').
    const SECRETS = `query($id: ID!, $rev: ID!) {
      deployments(limit: 100) { resources { uuid secrets { name value } } }
      deploymentsConnection(first: 100) { edges { node { uuid secrets { name value } } } }
      node(id: $id) { ... on Deployment { uuid secrets { name value } } }
      revision: node(id: $rev) { ... on Revision { deployment { uuid secrets { name value } } } }
    }`;
    const SECRETS_BY_NODES = 'query($ids: [ID!]!) { nodes(ids: $ids) { ... on Deployment { uuid secrets { name value } } } }';

    async function secretsSeen(key: string, tenant: string, seen: Found[]) {
      const deployment = ofType(seen, 'Deployment').find((d) => d.uuid === ACME_DEPLOYMENT || d.uuid === GLOBEX_CHECKOUT)!;
      const data = dataOf(await app.graphql(SECRETS, h(key, tenant), { id: deployment.id, rev: ofType(seen, 'Revision')[0]!.id }));
      const { nodes } = dataOf(await app.graphql(SECRETS_BY_NODES, h(key, tenant), { ids: ofType(seen, 'Deployment').map((d) => d.id) }));
      return [...data.deployments.resources, ...data.deploymentsConnection.edges.map((e: { node: unknown }) => e.node),
        data.node, ...nodes, data.revision.deployment] as { uuid: string; secrets: { name: string; value: string | null }[] }[];
    }
    const expectedSecrets = (tenant: string, uuid: string, readable: boolean) =>
      (tenantContents(tenant).deployments.find((d) => d.id === uuid)!.secrets ?? []).map(({ name, value }) => ({ name, value: readable ? value : null }));

    it('lists every secret by name with a null value for keys without the read-secrets scope', async () => {
      for (const [key, tenant] of [[acmeKey, ACME], [bothKey, ACME], [bothKey, GLOBEX]] as const) {
        const seen = await secretsSeen(key, tenant, tenant === ACME ? acme : globex);
        expect(seen.length).toBeGreaterThan(4);
        for (const d of seen) expect({ uuid: d.uuid, secrets: d.secrets }).toEqual({ uuid: d.uuid, secrets: expectedSecrets(tenant, d.uuid, false) });
        expect(seen.some((d) => d.secrets.length > 0)).toBe(true);
      }
    });

    it('gives the exact plaintext of the own tenant to keys with the scope', async () => {
      for (const [key, tenant] of [[acmeSecretsKey, ACME], [bothSecretsKey, ACME], [bothSecretsKey, GLOBEX]] as const) {
        const seen = await secretsSeen(key, tenant, tenant === ACME ? acme : globex);
        for (const d of seen) expect({ uuid: d.uuid, secrets: d.secrets }).toEqual({ uuid: d.uuid, secrets: expectedSecrets(tenant, d.uuid, true) });
        expect(seen.some((d) => d.secrets.some((s) => s.value !== null))).toBe(true);
      }
    });
  });
});
