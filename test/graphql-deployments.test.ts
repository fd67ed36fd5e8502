// The deployment listing over GraphQL (docs/decisions.md#deployment-listing): every filter, alone and combined,
// offset pages and Relay connections walked end to end, cursors across inserts, argument errors. Expected
// lists come from an independent oracle over the imported document (test/support/deployment-oracle.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoDocument, DEMO_TENANT_ID } from '../src/demo/demo-dataset.ts';
import { importDocument } from '../src/import/importer.ts';
import type { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { expectedIds, extraDeployment, type DemoDocument, type DocDeployment, type OracleFilter } from './support/deployment-oracle.ts';
import { issueKey, newCipher } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const PAGE = `query($filter: DeploymentFilter, $limit: Int! = 20, $offset: Int! = 0) {
  deployments(filter: $filter, limit: $limit, offset: $offset) { resources { uuid } offset hasNextPage totalCount } }`;
const CONNECTION = `query($filter: DeploymentFilter, $first: Int, $after: String, $last: Int, $before: String) {
  deploymentsConnection(filter: $filter, first: $first, after: $after, last: $last, before: $before) {
    edges { cursor node { uuid } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount } }`;
const UNKNOWN_UUID = '0badc0de-0000-4000-8000-000000000000';
const at = (iso: string, deltaMs: number) => new Date(Date.parse(iso) + deltaMs).toISOString();

describe('GraphQL deployment listing', () => {
  let db: TestDatabase;
  let app: RunningApp;
  let key: string;
  let cipher: SecretCipher;
  let doc: DemoDocument;
  /** Every deployment imported so far (the demo's, plus the extras below, plus later inserts). */
  const all: DocDeployment[] = [];
  const globalIdOf = new Map<string, string>();
  const oracle = (filter: OracleFilter = {}) => expectedIds(all, doc.tags, filter);

  const gql = (query: string, variables: Record<string, unknown> = {}) => app.graphql(query, { 'X-Api-Key': key }, variables);
  async function data(query: string, variables: Record<string, unknown> = {}) {
    const { status, body } = await gql(query, variables);
    expect({ status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
    return body.data;
  }
  const page = async (variables: Record<string, unknown>) => (await data(PAGE, variables)).deployments;
  const connection = async (variables: Record<string, unknown>) => (await data(CONNECTION, variables)).deploymentsConnection;
  const uuids = (p: { resources: { uuid: string }[] }) => p.resources.map((r) => r.uuid);
  const nodes = (c: { edges: { node: { uuid: string } }[] }) => c.edges.map((e) => e.node.uuid);
  async function importDeployments(deployments: DocDeployment[]) {
    await importDocument(db.orm.em.fork(), JSON.stringify({ deployments }), cipher);
    all.push(...deployments);
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    cipher = newCipher();
    doc = buildDemoDocument();
    await importDocument(db.orm.em.fork(), JSON.stringify(doc), cipher);
    all.push(...doc.deployments);
    // Names with LIKE metacharacters, all created at the same instant as a demo deployment (ties broken by id).
    const tie = doc.deployments[30]!.created_at;
    await importDeployments([
      extraDeployment(doc.deployments[1]!, '0f000000-0000-4000-8000-000000000001', 'lit-a%b', tie),
      extraDeployment(doc.deployments[2]!, 'f0000000-0000-4000-8000-000000000002', 'lit-a_b', tie),
      extraDeployment(doc.deployments[3]!, '70000000-0000-4000-8000-000000000003', 'lit-axb', tie),
      extraDeployment(doc.deployments[4]!, '7fffffff-ffff-4fff-bfff-ffffffffffff', 'lit-a\\b', tie),
    ]);
    key = await issueKey(db.orm.em, [DEMO_TENANT_ID]);
    app = await startApp(db.orm, cipher);
    const ids = await data('{ deployments(limit: 100) { resources { id uuid } } tagKeys { values { id uuid } } }');
    for (const r of [...ids.deployments.resources, ...ids.tagKeys.flatMap((k: { values: unknown[] }) => k.values)]) globalIdOf.set(r.uuid, r.id);
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  const tagValues = (tagKey: string) => doc.tags.find((t) => t.key === tagKey)!.values.map((v) => v.id);
  /** The env and team values of a deployment that has both, so that requiring both matches something. */
  const envAndTeam = () => doc.deployments.find((d) => d.tag_value_ids.length >= 2)!.tag_value_ids.slice(0, 2);
  const commonImageVersion = () => {
    const counts = Map.groupBy(doc.deployments, (d) => d.image_version);
    return [...counts.entries()].sort((a, b) => b[1].length - a[1].length)[0]![0];
  };
  const someIds = () => [doc.deployments[5]!.id, doc.deployments[41]!.id, doc.deployments[17]!.id, 'f0000000-0000-4000-8000-000000000002'];

  describe('filters alone', () => {
    const cases: [string, () => OracleFilter][] = [
      ['no filter', () => ({})],
      ['nameContains, case-insensitive', () => ({ nameContains: 'API' })],
      ['nameContains "%" matches only a literal %', () => ({ nameContains: '%' })],
      ['nameContains "A%B" matches only a literal %, in any case', () => ({ nameContains: 'A%B' })],
      ['nameContains "_" matches only a literal _', () => ({ nameContains: '_' })],
      ['nameContains "a_b" does not match "axb"', () => ({ nameContains: 'a_b' })],
      ['nameContains "\\" matches only a literal backslash', () => ({ nameContains: '\\' })],
      ['nameContains "a\\b"', () => ({ nameContains: 'a\\b' })],
      ['statuses: one', () => ({ statuses: ['READY'] })],
      ['statuses: several (any of them)', () => ({ statuses: ['UNUSED', 'AWAITING_DELETE'] })],
      ['remoteReconciled: true', () => ({ remoteReconciled: true })],
      ['remoteReconciled: false', () => ({ remoteReconciled: false })],
      ['imageVersion: exact', () => ({ imageVersion: commonImageVersion() })],
      ['deploymentType DEV_FREE', () => ({ deploymentType: 'DEV_FREE' })],
      ['deploymentType PROD', () => ({ deploymentType: 'PROD' })],
      ['ids (raw UUIDs, listing order, any case)', () => ({ ids: someIds().map((id, i) => (i % 2 ? id.toUpperCase() : id)) })],
      ['tagValueIds: one value', () => ({ tagValueIds: [tagValues('env')[0]!] })],
      ['tagValueIds: values of one key are OR', () => ({ tagValueIds: tagValues('env').slice(0, 2) })],
      ['tagValueIds: values of different keys are AND', () => ({ tagValueIds: envAndTeam() })],
      ['tagValueIds: OR within a key, AND across keys', () => ({ tagValueIds: [...tagValues('team'), tagValues('region')[0]!] })],
    ];
    it.each(cases)('%s', async (_name, makeFilter) => {
      const filter = makeFilter();
      const expected = oracle(filter);
      if (Object.keys(filter).length > 0) {
        // Each case must narrow the list to something, or it would not tell a working filter from a broken one.
        expect(expected.length).toBeGreaterThan(0);
        expect(expected.length).toBeLessThan(all.length);
      }
      const result = await page({ filter, limit: 100 });
      expect(uuids(result)).toEqual(expected);
      expect(result.totalCount).toBe(expected.length);
    });

    it('LIKE metacharacters match literally', async () => {
      const names = async (nameContains: string) => (await page({ filter: { nameContains }, limit: 100 })).resources.length;
      expect(await names('%')).toBe(1);
      expect(await names('a_b')).toBe(1);
      expect(await names('\\')).toBe(1);
      expect(await names('lit-a')).toBe(4);
    });

    it('accepts global ids, and raw UUIDs mixed with them, in ids and tagValueIds', async () => {
      const ids = someIds();
      const byGlobal = await page({ filter: { ids: ids.map((id, i) => (i % 2 ? id : globalIdOf.get(id))) }, limit: 100 });
      expect(uuids(byGlobal)).toEqual(oracle({ ids }));
      const tags = tagValues('env').slice(0, 2);
      const tagsByGlobal = await page({ filter: { tagValueIds: [globalIdOf.get(tags[0]!), tags[1]] }, limit: 100 });
      expect(uuids(tagsByGlobal)).toEqual(oracle({ tagValueIds: tags }));
      expect(globalIdOf.get(tags[0]!)).not.toBe(tags[0]);
    });

    it('matches nothing for an unknown tag value or deployment id', async () => {
      for (const filter of [{ tagValueIds: [UNKNOWN_UUID] }, { ids: [UNKNOWN_UUID] }]) {
        expect(await page({ filter, limit: 100 })).toEqual({ resources: [], offset: 0, hasNextPage: false, totalCount: 0 });
        const conn = await connection({ filter, first: 5 });
        expect({ edges: conn.edges, totalCount: conn.totalCount }).toEqual({ edges: [], totalCount: 0 });
      }
    });

    it('treats an empty string or empty list as no filter', async () => {
      const filter = { nameContains: '', imageVersion: '', statuses: [], tagValueIds: [], ids: [] };
      const result = await page({ filter, limit: 100 });
      expect(uuids(result)).toEqual(oracle());
      expect(result.totalCount).toBe(all.length);
    });
  });

  describe('filters combined', () => {
    const target = () => doc.deployments.find((d) => d.tag_value_ids.length >= 2 && d.remote_reconciled)!;
    const cases: [string, () => OracleFilter][] = [
      ['statuses + deploymentType', () => ({ statuses: ['READY', 'UNKNOWN'], deploymentType: 'DEV' })],
      ['remoteReconciled + tagValueIds', () => ({ remoteReconciled: false, tagValueIds: tagValues('env').slice(1) })],
      ['nameContains + statuses', () => ({ nameContains: '-2', statuses: ['AWAITING_DATABASE', 'READY'] })],
      ['ids + deploymentType', () => ({ ids: doc.deployments.slice(0, 12).map((d) => d.id), deploymentType: 'PROD' })],
      ['every filter at once', () => {
        const t = target();
        return {
          nameContains: t.name.slice(0, 3).toUpperCase(), statuses: [t.status, 'UNKNOWN'], remoteReconciled: true,
          tagValueIds: t.tag_value_ids, imageVersion: t.image_version, deploymentType: t.source_config.deployment_type!.toUpperCase(),
          ids: [t.id, ...doc.deployments.slice(0, 20).map((d) => d.id)],
        };
      }],
    ];
    it.each(cases)('%s', async (_name, makeFilter) => {
      const filter = makeFilter();
      const expected = oracle(filter);
      expect(expected.length).toBeGreaterThan(0);
      // Narrower than each part alone, so the conditions really combine (AND).
      for (const [field, value] of Object.entries(filter)) expect(expected.length).toBeLessThanOrEqual(oracle({ [field]: value }).length);
      expect(Object.entries(filter).some(([field, value]) => oracle({ [field]: value }).length > expected.length)).toBe(true);
      const result = await page({ filter, limit: 100 });
      expect(uuids(result)).toEqual(expected);
      expect(result.totalCount).toBe(expected.length);
    });
  });

  describe('offset pages', () => {
    async function walk(limit: number, filter: OracleFilter = {}) {
      const expected = oracle(filter);
      const seen: string[] = [];
      for (let offset = 0, pages = 0; ; pages++) {
        expect(pages).toBeLessThanOrEqual(expected.length + 1);
        const result = await page({ filter, limit, offset });
        const count = result.resources.length;
        expect(result.offset).toBe(offset + count);
        expect(result.hasNextPage).toBe(offset + count < expected.length);
        expect(result.totalCount).toBe(expected.length);
        seen.push(...uuids(result));
        if (count < limit) break;
        offset = result.offset;
      }
      expect(seen).toEqual(expected);
    }

    it.each([7, 1, 100])('walks the whole list with limit %i', (limit) => walk(limit));
    it('walks a filtered list', () => walk(3, { statuses: ['READY', 'UNUSED'] }));
    it('walks a list whose last page exactly fills the limit', async () => {
      const total = all.length;
      const limit = [9, 8, 7, 6, 5, 4, 3, 2].find((n) => total % n === 0)!;
      const last = await page({ limit, offset: total - limit });
      expect({ count: last.resources.length, hasNextPage: last.hasNextPage, offset: last.offset }).toEqual({ count: limit, hasNextPage: false, offset: total });
      const full = await page({ limit: total });
      expect({ count: full.resources.length, hasNextPage: full.hasNextPage }).toEqual({ count: total, hasNextPage: false });
      expect((await page({ limit: total - 1 })).hasNextPage).toBe(true);
      await walk(limit);
    });

    it('echoes the offset past the end, even a huge one', async () => {
      for (const offset of [all.length, all.length + 5, 2_000_000_000]) {
        expect(await page({ limit: 10, offset })).toEqual({ resources: [], offset, hasNextPage: false, totalCount: all.length });
      }
    });

    it('defaults to 20 from offset 0', async () => {
      const result = (await data('{ deployments { resources { uuid } offset } }')).deployments;
      expect({ ids: uuids(result), offset: result.offset }).toEqual({ ids: oracle().slice(0, 20), offset: 20 });
    });
  });

  describe('connection', () => {
    it.each([7, 3, 1, 100])('walks forwards with first %i', async (first) => expect(await forwards(first)).toEqual(oracle()));
    it.each([7, 3, 1, 100])('walks backwards with last %i', async (last) => expect(await backwards(last)).toEqual(oracle()));
    it('walks a filtered list both ways', async () => {
      const filter = { deploymentType: 'DEV', remoteReconciled: false };
      expect(await forwards(4, filter)).toEqual(oracle(filter));
      expect(await backwards(4, filter)).toEqual(oracle(filter));
    });

    it('gives 20 edges without first or last, and an empty page beyond either end', async () => {
      const start = await connection({});
      expect(nodes(start)).toEqual(oracle().slice(0, 20));
      expect(start.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
      expect(start.totalCount).toBe(all.length);
      const tail = await connection({ last: 1 });
      const beyond = await connection({ first: 5, after: tail.pageInfo.endCursor });
      expect(beyond).toEqual({ edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null }, totalCount: all.length });
      const before = await connection({ last: 5, before: start.pageInfo.startCursor });
      expect(before.edges).toEqual([]);
      expect(before.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    });

    it('counts the cursor\'s own edge: hasPreviousPage after the first edge, hasNextPage before the last', async () => {
      const head = await connection({ first: 1 });
      expect((await connection({ first: 1, after: head.pageInfo.endCursor })).pageInfo.hasPreviousPage).toBe(true);
      const tail = await connection({ last: 1 });
      expect((await connection({ last: 1, before: tail.pageInfo.startCursor })).pageInfo.hasNextPage).toBe(true);
    });

    it('continues from any edge cursor, between after and before', async () => {
      const c = await connection({ first: 30 });
      const list = oracle();
      expect(nodes(await connection({ first: 5, after: c.edges[9].cursor }))).toEqual(list.slice(10, 15));
      expect(nodes(await connection({ last: 3, before: c.edges[9].cursor }))).toEqual(list.slice(6, 9));
      const between = await connection({ first: 100, after: c.edges[3].cursor, before: c.edges[8].cursor });
      expect(nodes(between)).toEqual(list.slice(4, 8));
    });
  });

  describe('invalid arguments', () => {
    async function expectBadInput(query: string, variables: Record<string, unknown>, argument: string | RegExp) {
      const { status, body } = await gql(query, variables);
      expect(status).toBeLessThan(500);
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT', argument: typeof argument === 'string' ? argument : expect.stringMatching(argument),
      });
    }
    const manyIds = (n: number) => Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);

    it.each([0, 101, -1])('rejects limit %i', (limit) => expectBadInput(PAGE, { limit }, 'limit'));
    it('rejects offset -1', () => expectBadInput(PAGE, { offset: -1 }, 'offset'));
    it.each([0, 101, -1])('rejects first and last %i', async (n) => {
      await expectBadInput(CONNECTION, { first: n }, 'first');
      await expectBadInput(CONNECTION, { last: n }, 'last');
    });
    it('rejects first and last together', () => expectBadInput(CONNECTION, { first: 5, last: 5 }, /^(first|last)$/));
    it.each(['nope', '!!!', 'ZGVwbG95bWVudDp2MTpub3BlfG5vcGU', Buffer.from(`Deployment:${UNKNOWN_UUID}`).toString('base64url')])(
      'rejects the malformed cursor %s', async (cursor) => {
        await expectBadInput(CONNECTION, { after: cursor }, 'after');
        await expectBadInput(CONNECTION, { before: cursor }, 'before');
      });
    it.each(['nope', '123'])('rejects the malformed id %s', async (id) => {
      await expectBadInput(PAGE, { filter: { ids: [id] } }, /^(filter\.)?ids$/);
      await expectBadInput(CONNECTION, { filter: { ids: [oracle()[0], id] } }, /^(filter\.)?ids$/);
      await expectBadInput(PAGE, { filter: { tagValueIds: [id] } }, /^(filter\.)?tagValueIds$/);
    });
    it('rejects more than 100 ids, and accepts 100', async () => {
      await expectBadInput(PAGE, { filter: { ids: manyIds(101) } }, /^(filter\.)?ids$/);
      await expectBadInput(PAGE, { filter: { tagValueIds: manyIds(101) } }, /^(filter\.)?tagValueIds$/);
      const hundred = [...manyIds(99), oracle()[3]];
      expect(uuids(await page({ filter: { ids: hundred } }))).toEqual([oracle()[3]]);
    });
    it('rejects a NUL character in text filters', async () => {
      await expectBadInput(PAGE, { filter: { nameContains: 'a\u0000b' } }, /^(filter\.)?nameContains$/);
      await expectBadInput(CONNECTION, { filter: { imageVersion: '\u0000' } }, /^(filter\.)?imageVersion$/);
    });
  });

  describe('cursors across inserts', () => {
    it('continue without duplicates or gaps when deployments are added before and after them', async () => {
      const before = oracle();
      const head = await connection({ first: 7 });
      const tail = await connection({ last: 7 });
      const cursorNode = all.find((d) => d.id === before[6])!;
      const newest = [...all].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))[0]!.created_at;
      await importDeployments([
        extraDeployment(doc.deployments[8]!, 'a1000000-0000-4000-8000-000000000001', 'inserted-newest', at(newest, 86_400_000)),
        extraDeployment(doc.deployments[9]!, 'a1000000-0000-4000-8000-000000000002', 'inserted-middle', at(doc.deployments[25]!.created_at, 60_000)),
        extraDeployment(doc.deployments[10]!, 'ffffffff-ffff-4fff-bfff-ffffffffffff', 'inserted-tie-before', cursorNode.created_at),
        extraDeployment(doc.deployments[11]!, '00000000-0000-4000-8000-000000000000', 'inserted-tie-after', cursorNode.created_at),
      ]);
      const after = oracle();
      expect(after).toHaveLength(before.length + 4);

      const rest = await forwards(7, {}, head.pageInfo.endCursor);
      const forwardList = [...nodes(head), ...rest];
      expect(new Set(forwardList).size).toBe(forwardList.length);
      expect(forwardList).toEqual(after.filter((id) => !['a1000000-0000-4000-8000-000000000001', 'ffffffff-ffff-4fff-bfff-ffffffffffff'].includes(id)));
      expect(forwardList).toContain('00000000-0000-4000-8000-000000000000');

      const earlier = await backwards(7, {}, tail.pageInfo.startCursor);
      const backwardList = [...earlier, ...nodes(tail)];
      expect(backwardList).toEqual(after);
      expect((await page({ limit: 100 })).totalCount).toBe(after.length);
    });
  });

  // Connection walks, shared by the connection and insert tests; every page's pageInfo is checked on the way.
  type Edge = { cursor: string; node: { uuid: string } };
  function checkPage(c: { edges: Edge[]; pageInfo: Record<string, unknown> }, pages: number) {
    expect(pages).toBeLessThanOrEqual(all.length + 1);
    expect(c.pageInfo.startCursor).toBe(c.edges[0]?.cursor ?? null);
    expect(c.pageInfo.endCursor).toBe(c.edges.at(-1)?.cursor ?? null);
  }
  async function forwards(first: number, filter: OracleFilter = {}, after?: string): Promise<string[]> {
    const seen: string[] = [];
    for (let pages = 0; ; pages++) {
      const c = await connection({ filter, first, after });
      checkPage(c, pages);
      expect(c.pageInfo.hasPreviousPage).toBe(after != null);
      seen.push(...c.edges.map((e: Edge) => e.node.uuid));
      if (!c.pageInfo.hasNextPage) return seen;
      expect(c.edges).toHaveLength(first);
      after = c.pageInfo.endCursor;
    }
  }
  async function backwards(last: number, filter: OracleFilter = {}, before?: string): Promise<string[]> {
    const seen: string[] = [];
    for (let pages = 0; ; pages++) {
      const c = await connection({ filter, last, before });
      checkPage(c, pages);
      expect(c.pageInfo.hasNextPage).toBe(before != null);
      seen.unshift(...c.edges.map((e: Edge) => e.node.uuid));
      if (!c.pageInfo.hasPreviousPage) return seen;
      expect(c.edges).toHaveLength(last);
      before = c.pageInfo.startCursor;
    }
  }
});
