// GET /v2/deployments/{deployment_id}, GET /v2/deployments/{deployment_id}/revisions and
// GET /v2/deployments/{deployment_id}/revisions/{revision_id} as a legacy client reads them: whole response texts
// against records written from the original's shapes (docs/legacy-api.md#revision-record) and the defaults of
// docs/decisions.md#revisions; paging walks, filters, another tenant's ids, and FastAPI's 422 bodies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from './support/app-server.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME, ACME_DEPLOYMENT, GLOBEX, GLOBEX_DEPLOYMENT } from './support/fixtures.ts';
import { MASK, acmeCheckout, globexOther } from './support/legacy-rest-expected.ts';
import { textSummary } from './support/legacy-text.ts';
import {
  GLOBEX_APP, GLOBEX_APP_REVISIONS, HISTORY_APP, HISTORY_REVISIONS, QUIET_APP, REVISIONS_DOCUMENT, STATUSES, expectedHistory, legacyRevision,
} from './support/revision-data.ts';

const UNKNOWN = '0f0f0f0f-0000-4000-8000-000000000000';
const [CHECKOUT_DEPLOYED, CHECKOUT_BUILDING] = ['66666666-6666-4666-8666-666666666661', '66666666-6666-4666-8666-666666666662'];
// The fixture's two revisions of checkout-prod, written out from the Revision record of docs/legacy-api.md.
const CHECKOUT_REVISIONS: Record<'building' | 'deployed', string> = {
  building: '{"id":"66666666-6666-4666-8666-666666666662","created_at":"2026-03-02T11:30:00.000Z","updated_at":"2026-03-02T11:30:15.250Z",'
    + '"status":"BUILDING","source":"github","source_revision_config":{"repo_ref":"main","graph_config_path":"config/graph.json",'
    + '"image_uri":"registry.example.com/acme/checkout:1.4.2","source_tarball_path":"uploads/checkout.tar.gz","repo_commit_sha":"0123456789abcdef0123456789abcdef01234567"}}',
  deployed: '{"id":"66666666-6666-4666-8666-666666666661","created_at":"2026-03-01T10:05:00.000Z","updated_at":"2026-03-01T10:20:30.125Z",'
    + '"status":"DEPLOYED","source":"github","source_revision_config":{"repo_ref":"main","graph_config_path":"config/graph.json",'
    + '"image_uri":"registry.example.com/acme/checkout:1.4.1","source_tarball_path":null,"repo_commit_sha":"fedcba9876543210fedcba9876543210fedcba98"}}',
};
const REVISION_STATUSES_MSG = STATUSES.map((s) => `'${s}'`).join(', ').replace(/, ('UNKNOWN')$/, ' or $1');
const uuidParsing = (loc: (string | number)[], input: string, error: string) =>
  ({ type: 'uuid_parsing', loc, msg: `Input should be a valid UUID, ${error}`, input, ctx: { error } });
const deploymentNotFound = (id: string) => `{"detail":"Deployment ID ${id} not found."}`;
const revisionNotFound = (id: string) => `{"detail":"Revision ID ${id} not found."}`;

describe('REST: one deployment, its revisions, one revision', () => {
  let fixture: FixtureApp<'acme' | 'acmeSecrets' | 'globex' | 'both'>;
  let app: RunningApp;
  let keys: FixtureApp<'acme' | 'acmeSecrets' | 'globex' | 'both'>['keys'];

  beforeAll(async () => {
    fixture = await startFixtureApp([REVISIONS_DOCUMENT], {
      acme: { tenants: [ACME] }, acmeSecrets: { tenants: [ACME], mayReadSecrets: true }, globex: { tenants: [GLOBEX] }, both: { tenants: [ACME, GLOBEX] },
    });
    ({ app, keys } = fixture);
  });
  afterAll(() => fixture?.close());

  const get = (path: string, key = keys.acme, headers: Record<string, string> = {}) => fetch(`${app.url}${path}`, { headers: { 'x-api-key': key, ...headers } });
  async function expectText(path: string, expected: string, { key, status = 200 }: { key?: string; status?: number } = {}) {
    expect(await textSummary(await get(path, key), expected)).toEqual({ status, type: 'application/json', body: 'identical' });
  }
  const json = async (path: string, key?: string) => {
    const response = await get(path, key);
    return { status: response.status, body: await response.json() };
  };
  const revisions = (id: string, query = '') => `/v2/deployments/${id}/revisions${query ? `?${query}` : ''}`;

  describe('GET /v2/deployments/{deployment_id}', () => {
    it.each([
      ['ACME, masked', () => keys.acme, ACME_DEPLOYMENT, () => acmeCheckout([MASK, MASK])],
      ['ACME, read-secrets scope', () => keys.acmeSecrets, ACME_DEPLOYMENT, () => acmeCheckout(['sk_live_fixture_Zq8', 'correct horse battery staple'])],
      ['GLOBEX, sparse', () => keys.globex, GLOBEX_DEPLOYMENT, () => globexOther(MASK)],
    ])('%s: the record the list shows, byte for byte', async (_, key, id, record) => {
      await expectText(`/v2/deployments/${id}`, JSON.stringify(record()), { key: key() });
      const listed = await (await get(`/v2/deployments?deployment_ids=${id}`, key())).json();
      expect(listed.resources).toEqual([record()]);
    });

    it('reads the path id as pydantic does: upper case, braced, urn:uuid: or 32 hex digits', async () => {
      const expected = JSON.stringify(acmeCheckout([MASK, MASK]));
      for (const form of [ACME_DEPLOYMENT.toUpperCase(), `%7B${ACME_DEPLOYMENT}%7D`, `urn:uuid:${ACME_DEPLOYMENT}`, ACME_DEPLOYMENT.replaceAll('-', '')]) {
        await expectText(`/v2/deployments/${form}`, expected);
      }
    });

    it('404 with the original\'s wording for an unknown id and for another tenant\'s, alike', async () => {
      await expectText(`/v2/deployments/${UNKNOWN}`, deploymentNotFound(UNKNOWN), { status: 404 });
      await expectText(`/v2/deployments/${GLOBEX_DEPLOYMENT}`, deploymentNotFound(GLOBEX_DEPLOYMENT), { status: 404 });
      await expectText(`/v2/deployments/${ACME_DEPLOYMENT.toUpperCase()}`, deploymentNotFound(ACME_DEPLOYMENT), { key: keys.globex, status: 404 });
      // The same id is there for its own tenant: the 404 above is the tenant boundary.
      expect((await get(`/v2/deployments/${GLOBEX_DEPLOYMENT}`, keys.both, { 'x-tenant-id': GLOBEX })).status).toBe(200);
    });

    it('422 uuid_parsing at ["path","deployment_id"] for a malformed id (a global id included)', async () => {
      const globalId = Buffer.from(`Deployment:${ACME_DEPLOYMENT}`).toString('base64url');
      for (const [segment, error] of [['extra', 'invalid character: found `x` at 2'], ['12345', 'invalid length: expected length 32 for simple format, found 5'],
        [globalId, `invalid character: found \`${[...globalId].find((c) => !/[0-9a-fA-F-]/.test(c))}\` at ${[...globalId].findIndex((c) => !/[0-9a-fA-F-]/.test(c)) + 1}`]]) {
        await expectText(`/v2/deployments/${segment}`, JSON.stringify({ detail: [uuidParsing(['path', 'deployment_id'], segment!, error!)] }), { status: 422 });
      }
    });
  });

  describe('GET /v2/deployments/{deployment_id}/revisions', () => {
    it('lists the fixture\'s revisions newest first, in the original\'s record, byte for byte', async () => {
      await expectText(revisions(ACME_DEPLOYMENT), `{"resources":[${CHECKOUT_REVISIONS.building},${CHECKOUT_REVISIONS.deployed}],"offset":2}`);
      await expectText(revisions(QUIET_APP), '{"resources":[],"offset":0}');
    });

    it('gives revisions of the older import format their defaults: updated_at = created_at, the deployment\'s source, every config key null', async () => {
      const { body } = await json(revisions(HISTORY_APP, 'limit=100'));
      const old = body.resources.find((r: { id: string }) => r.id === HISTORY_REVISIONS[0]!.id);
      expect(old).toEqual({
        id: HISTORY_REVISIONS[0]!.id, created_at: '2026-04-01T08:00:00.000Z', updated_at: '2026-04-01T08:00:00.000Z', status: 'CREATING', source: 'internal_docker',
        source_revision_config: { repo_ref: null, graph_config_path: null, image_uri: null, source_tarball_path: null, repo_commit_sha: null },
      });
      expect(body).toEqual({ resources: expectedHistory(), offset: 25 });
    });

    it('walks every page: the next offset from each answer, ties in created_at broken by id, nothing twice or skipped', async () => {
      for (const limit of [1, 7, 20, 25, 100]) {
        const seen: unknown[] = [];
        let offset = 0;
        const offsets: number[] = [];
        for (;;) {
          const { status, body } = await json(revisions(HISTORY_APP, `limit=${limit}&offset=${offset}`));
          expect(status).toBe(200);
          seen.push(...body.resources);
          expect(body.offset).toBe(offset + body.resources.length);
          offsets.push(body.offset);
          offset = body.offset;
          if (body.resources.length < limit) break;
        }
        expect({ limit, seen }).toEqual({ limit, seen: expectedHistory() });
        expect(offsets.at(-1)).toBe(25);
      }
      expect((await json(revisions(HISTORY_APP))).body.resources).toEqual(expectedHistory().slice(0, 20));
    });

    it.each([
      ['offset=25', 25], ['offset=40', 40], ['offset=2147483648', '2147483648'], ['offset=99999999999999999999', '99999999999999999999'], ['offset=1_0&limit=2', null],
    ])('past the end or beyond: %s', async (query, echoed) => {
      const response = await get(revisions(HISTORY_APP, query));
      const text = await response.text();
      if (echoed === null) expect(JSON.parse(text)).toEqual({ resources: expectedHistory().slice(10, 12), offset: 12 });
      else expect(text).toBe(`{"resources":[],"offset":${echoed}}`);
    });

    it.each<[string, { statuses?: string[]; remoteReconciled?: boolean }]>([
      ['status=DEPLOYED', { statuses: ['DEPLOYED'] }],
      ['status=CREATING,QUEUED,UNKNOWN', { statuses: ['CREATING', 'QUEUED', 'UNKNOWN'] }],
      ['status=', {}],
      ['remote_reconciled=true', { remoteReconciled: true }],
      ['remote_reconciled=No', { remoteReconciled: false }],
      ['remote_reconciled=1&status=QUEUED,AWAITING_BUILD,SKIPPED', { remoteReconciled: true, statuses: ['QUEUED', 'AWAITING_BUILD', 'SKIPPED'] }],
    ])('filters: %s', async (query, filter) => {
      const expected = expectedHistory(filter);
      const { status, body } = await json(revisions(HISTORY_APP, `limit=100&${query}`));
      expect({ status, body }).toEqual({ status: 200, body: { resources: expected, offset: expected.length } });
      expect(expected.length).toBeGreaterThan(0);
    });

    it('404 for an unknown deployment and for another tenant\'s, alike, whatever the parameters', async () => {
      await expectText(revisions(UNKNOWN), deploymentNotFound(UNKNOWN), { status: 404 });
      await expectText(revisions(GLOBEX_APP, 'limit=5&status=DEPLOYED'), deploymentNotFound(GLOBEX_APP), { status: 404 });
      await expectText(revisions(HISTORY_APP), deploymentNotFound(HISTORY_APP), { key: keys.globex, status: 404 });
      expect((await json(revisions(GLOBEX_APP), keys.globex)).body.resources.map((r: { id: string }) => r.id)).toEqual([...GLOBEX_APP_REVISIONS].reverse());
    });

    it.each<[string, object[]]>([
      ['limit=0', [{ type: 'greater_than_equal', loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', input: '0', ctx: { ge: 1 } }]],
      ['limit=101', [{ type: 'less_than_equal', loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100', input: '101', ctx: { le: 100 } }]],
      ['offset=-1', [{ type: 'greater_than_equal', loc: ['query', 'offset'], msg: 'Input should be greater than or equal to 0', input: '-1', ctx: { ge: 0 } }]],
      ['offset=', [{ type: 'int_parsing', loc: ['query', 'offset'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: '' }]],
      // READY is a deployment status, not a revision status.
      ['status=DEPLOYED,READY', [{ type: 'enum', loc: ['query', 'status', 1], msg: `Input should be ${REVISION_STATUSES_MSG}`, input: 'READY', ctx: { expected: REVISION_STATUSES_MSG } }]],
      ['remote_reconciled=maybe', [{ type: 'bool_parsing', loc: ['query', 'remote_reconciled'], msg: 'Input should be a valid boolean, unable to interpret input', input: 'maybe' }]],
    ])('422 %s, as FastAPI writes it', async (query, detail) => {
      await expectText(revisions(HISTORY_APP, query), JSON.stringify({ detail }), { status: 422 });
    });

    it('422 lists every error at once, the path parameter first, before any 404', async () => {
      await expectText(revisions('nope', 'remote_reconciled=x&limit=0'), JSON.stringify({ detail: [
        uuidParsing(['path', 'deployment_id'], 'nope', 'invalid character: found `n` at 1'),
        { type: 'greater_than_equal', loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', input: '0', ctx: { ge: 1 } },
        { type: 'bool_parsing', loc: ['query', 'remote_reconciled'], msg: 'Input should be a valid boolean, unable to interpret input', input: 'x' },
      ] }), { status: 422 });
      expect((await get(revisions(UNKNOWN, 'limit=0'))).status).toBe(422);
    });
  });

  describe('GET /v2/deployments/{deployment_id}/revisions/{revision_id}', () => {
    const [GLOBEX_FIRST] = GLOBEX_APP_REVISIONS as [string, string];
    const one = (deployment: string, revision: string) => `/v2/deployments/${deployment}/revisions/${revision}`;

    it('answers the revision, byte for byte, with any spelling of either id', async () => {
      await expectText(one(ACME_DEPLOYMENT, CHECKOUT_DEPLOYED), CHECKOUT_REVISIONS.deployed);
      await expectText(one(ACME_DEPLOYMENT.toUpperCase(), `urn:uuid:${CHECKOUT_BUILDING}`), CHECKOUT_REVISIONS.building);
      for (const revision of [HISTORY_REVISIONS[0]!, HISTORY_REVISIONS[5]!]) {
        await expectText(one(HISTORY_APP, revision.id.replaceAll('-', '')), JSON.stringify(legacyRevision(revision, 'internal_docker')));
      }
    });

    it('404 "Revision ID … not found." for an unknown revision, another deployment\'s and another tenant\'s, alike', async () => {
      for (const revision of [UNKNOWN, CHECKOUT_DEPLOYED, GLOBEX_FIRST]) {
        await expectText(one(HISTORY_APP, revision.toUpperCase()), revisionNotFound(revision), { status: 404 });
      }
      // Another tenant's deployment is a missing deployment, even with one of its own revisions.
      await expectText(one(GLOBEX_APP, GLOBEX_FIRST), deploymentNotFound(GLOBEX_APP), { status: 404 });
      await expectText(one(UNKNOWN, CHECKOUT_DEPLOYED), deploymentNotFound(UNKNOWN), { status: 404 });
      expect((await get(one(GLOBEX_APP, GLOBEX_FIRST), keys.globex)).status).toBe(200);
    });

    it('422 for malformed ids, the deployment\'s first', async () => {
      await expectText(one('x', 'y'), JSON.stringify({ detail: [
        uuidParsing(['path', 'deployment_id'], 'x', 'invalid character: found `x` at 1'),
        uuidParsing(['path', 'revision_id'], 'y', 'invalid character: found `y` at 1'),
      ] }), { status: 422 });
      await expectText(one(HISTORY_APP, `${CHECKOUT_DEPLOYED}0`), JSON.stringify({ detail: [
        uuidParsing(['path', 'revision_id'], `${CHECKOUT_DEPLOYED}0`, 'invalid group length in group 4: expected 12, found 13'),
      ] }), { status: 422 });
    });
  });
});
