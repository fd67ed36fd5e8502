// The legacy JSON of GET /v2/deployments and the /v1 repository listings, as a legacy client reads it: the
// whole response text against JSON written by hand from docs/legacy-api.md and docs/decisions.md (key order, nulls,
// number types, masking), then the filters of GET /v2/deployments end to end over the fixture's data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import {
  ACME, ACME_DEPLOYMENT, ACME_INTEGRATION, GLOBEX, GLOBEX_DEPLOYMENT, GLOBEX_INTEGRATION, importFixture, issueKey, newCipher,
} from './support/fixtures.ts';
import { importExtra } from './support/graphql-expect.ts';
import { textSummary } from './support/legacy-text.ts';
import {
  ACME_CODEHOST_REPOS, ACME_GITLAB, ACME_GITLAB_REPOS, ACME_MANAGED, ACME_MANAGED_REPOS, MASK, REST_EXTRA_DOCUMENT, acmeCheckout, globexOther,
} from './support/legacy-rest-expected.ts';

const ACME_SECRETS: [string, string] = ['sk_live_fixture_Zq8', 'correct horse battery staple'];
const UNKNOWN = '0f0f0f0f-0000-4000-8000-000000000000';
// Objects whose content is free-form (docs/legacy-api.md#free-form-objects): the walk below compares their content only.
const FREE_FORM = new Set(['labels', 'annotations', 'configMap', 'secret', 'emptyDir', 'persistentVolumeClaim', 'nfs', 'projected',
  'downwardAPI', 'csi', 'valueFrom', 'envFrom', 'limits', 'requests', 'securityContext']);

/** The key order of every declared object, as [path, keys] pairs; free-form maps are left out. */
function declaredKeyOrders(value: unknown, path = '$'): [string, string[]][] {
  if (Array.isArray(value)) return value.flatMap((item, i) => declaredKeyOrders(item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  const entries = Object.entries(value).filter(([key]) => !FREE_FORM.has(key));
  return [[path, Object.keys(value)], ...entries.flatMap(([key, child]) => declaredKeyOrders(child, `${path}.${key}`))];
}

describe('legacy REST JSON', () => {
  let db: TestDatabase;
  let app: RunningApp;
  const keys: Record<'acme' | 'acmeSecrets' | 'globex' | 'globexSecrets' | 'both', string> = {} as never;

  beforeAll(async () => {
    db = await createTestDatabase();
    const cipher = newCipher();
    await importFixture(db.orm.em.fork(), cipher);
    await importExtra(db.orm.em, cipher, REST_EXTRA_DOCUMENT);
    keys.acme = await issueKey(db.orm.em, [ACME]);
    keys.acmeSecrets = await issueKey(db.orm.em, [ACME], true);
    keys.globex = await issueKey(db.orm.em, [GLOBEX]);
    keys.globexSecrets = await issueKey(db.orm.em, [GLOBEX], true);
    keys.both = await issueKey(db.orm.em, [ACME, GLOBEX]);
    app = await startApp(db.orm, cipher);
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  const get = (path: string, key = keys.acme, headers: Record<string, string> = {}) =>
    fetch(`${app.url}${path}`, { headers: { 'x-api-key': key, ...headers } });
  /** Status, content type and the whole body text, which must equal `expected` (a JSON text) byte for byte. */
  async function expectText(path: string, expected: string, options: { key?: string; headers?: Record<string, string>; status?: number } = {}) {
    const actual = await textSummary(await get(path, options.key, options.headers), expected);
    expect(actual).toEqual({ status: options.status ?? 200, type: 'application/json', body: 'identical' });
  }

  describe('GET /v2/deployments: the whole body', () => {
    // Free-form maps (nfs, securityContext, …) are expected with the key order they were imported with.
    const cases: [string, () => string, () => unknown][] = [
      ['ACME, no read-secrets scope: every value masked', () => keys.acme, () => ({ resources: [acmeCheckout([MASK, MASK])], offset: 1 })],
      ['ACME, read-secrets scope: plaintext', () => keys.acmeSecrets, () => ({ resources: [acmeCheckout(ACME_SECRETS)], offset: 1 })],
      ['GLOBEX, no read-secrets scope', () => keys.globex, () => ({ resources: [globexOther(MASK)], offset: 1 })],
      ['GLOBEX, read-secrets scope', () => keys.globexSecrets, () => ({ resources: [globexOther('tenant-two-secret-value')], offset: 1 })],
    ];
    it.each(cases)('%s', async (_, key, expected) => {
      await expectText('/v2/deployments', JSON.stringify(expected()), { key: key() });
    });

    it('a two-tenant key gets the tenant X-Tenant-Id names (header name in any case)', async () => {
      await expectText('/v2/deployments', JSON.stringify({ resources: [globexOther(MASK)], offset: 1 }), { key: keys.both, headers: { 'X-Tenant-ID': GLOBEX } });
      const acme = await (await get('/v2/deployments', keys.both, { 'x-tenant-id': ACME })).json();
      expect(acme).toEqual({ resources: [acmeCheckout([MASK, MASK])], offset: 1 });
    });

    it('declared keys come in the specification order at every level; values equal the hand-written ones', async () => {
      const body = await (await get('/v2/deployments', keys.acmeSecrets)).json();
      const expected = { resources: [acmeCheckout(ACME_SECRETS)], offset: 1 };
      expect(declaredKeyOrders(body)).toEqual(declaredKeyOrders(expected));
      expect(body).toEqual(expected);
    });

    it('keeps integers integral and fractions fractional (as JSON number literals)', async () => {
      const body = await (await get('/v2/deployments')).text();
      for (const literal of ['"min_scale":1,', '"cpu":0.5,', '"orchestrator_cpu_limit":1,', '"redis_cpu":0.1,', '"db_cpu_limit":2.5,', '"db_max_connections":150,', '"runAsUser":1000']) {
        expect(body).toContain(literal);
      }
    });
  });

  describe('GET /v2/deployments: the offset envelope', () => {
    // GLOBEX's record, so that these cases do not depend on the free-form maps of ACME's.
    const page = (resources: unknown[], offset: unknown) => `{"resources":${JSON.stringify(resources)},"offset":${offset}}`;
    const cases: [string, string][] = [
      ['limit=1', page([globexOther(MASK)], 1)],
      ['offset=0&limit=100', page([globexOther(MASK)], 1)],
      ['offset=1', page([], 1)],
      ['offset=7', page([], 7)],
      ['offset=1_0', page([], 10)],
      ['offset=%2B3.00', page([], 3)],
      ['offset=2147483647', page([], 2147483647)],
      ['offset=2147483648', page([], 2147483648)],
      ['offset=9007199254740993', page([], '9007199254740993')],
      ['offset=99999999999999999999999', page([], '99999999999999999999999')],
      ['offset=%2099999999999999999999999.0%20', page([], '99999999999999999999999')],
      [`offset=${'9'.repeat(4300)}`, page([], '9'.repeat(4300))],
    ];
    it.each(cases)('%s', async (query, expected) => {
      await expectText(`/v2/deployments?${query}`, expected, { key: keys.globex });
    });
  });

  describe('repository listings: a bare array of records', () => {
    const cases: [string, unknown][] = [
      [`/v1/integrations/codehost/${ACME_INTEGRATION}/repos`, ACME_CODEHOST_REPOS],
      [`/v1/integrations/github/${ACME_INTEGRATION}/repos`, ACME_CODEHOST_REPOS],
      [`/v1/integrations/codehost/${ACME_GITLAB}/repos`, ACME_GITLAB_REPOS],
      [`/v1/integrations/gitlab/${ACME_GITLAB}/repos`, ACME_GITLAB_REPOS],
      [`/v1/integrations/managed/codehost/${ACME_MANAGED}/repos`, ACME_MANAGED_REPOS],
      [`/v1/integrations/forge/github/${ACME_MANAGED}/repos`, ACME_MANAGED_REPOS],
      // pydantic reads a UUID path parameter laxly: upper case, braces, 32 hex digits.
      [`/v1/integrations/codehost/${ACME_GITLAB.toUpperCase()}/repos`, ACME_GITLAB_REPOS],
      [`/v1/integrations/gitlab/{${ACME_GITLAB}}/repos`, ACME_GITLAB_REPOS],
      [`/v1/integrations/managed/codehost/%7B${ACME_MANAGED.toUpperCase()}%7D/repos`, ACME_MANAGED_REPOS],
      [`/v1/integrations/github/${ACME_INTEGRATION.replaceAll('-', '')}/repos`, ACME_CODEHOST_REPOS],
      [`/v1/integrations/forge/github/${ACME_MANAGED.replaceAll('-', '').toUpperCase()}/repos`, ACME_MANAGED_REPOS],
      [`/v1/integrations/forge/github/urn:uuid:${ACME_MANAGED}/repos`, ACME_MANAGED_REPOS],
    ];
    it.each(cases)('GET %s', async (path, expected) => {
      await expectText(path, JSON.stringify(expected));
    });

    it('an integration without repositories lists []', async () => {
      await expectText(`/v1/integrations/managed/codehost/${GLOBEX_INTEGRATION}/repos`, '[]', { key: keys.globex });
      await expectText(`/v1/integrations/forge/github/${GLOBEX_INTEGRATION}/repos`, '[]', { key: keys.globex });
    });
  });

  describe('repository listings: 404 for the wrong kind, the wrong code host or an unknown id', () => {
    const cases: [string, string][] = [
      [`/v1/integrations/managed/codehost/${ACME_INTEGRATION}/repos`, ACME_INTEGRATION],
      [`/v1/integrations/forge/github/${ACME_INTEGRATION}/repos`, ACME_INTEGRATION],
      [`/v1/integrations/codehost/${ACME_MANAGED}/repos`, ACME_MANAGED],
      [`/v1/integrations/github/${ACME_MANAGED}/repos`, ACME_MANAGED],
      [`/v1/integrations/gitlab/${ACME_INTEGRATION}/repos`, ACME_INTEGRATION],
      [`/v1/integrations/github/${ACME_GITLAB}/repos`, ACME_GITLAB],
      [`/v1/integrations/bitbucket/${ACME_INTEGRATION}/repos`, ACME_INTEGRATION],
      [`/v1/integrations/codehost/${UNKNOWN}/repos`, UNKNOWN],
      [`/v1/integrations/github/${UNKNOWN}/repos`, UNKNOWN],
      [`/v1/integrations/managed/codehost/${UNKNOWN}/repos`, UNKNOWN],
      // The message names the canonical (lower-case, hyphenated) form, whatever form the path used.
      [`/v1/integrations/codehost/${UNKNOWN.toUpperCase()}/repos`, UNKNOWN],
      [`/v1/integrations/managed/codehost/{${UNKNOWN.toUpperCase()}}/repos`, UNKNOWN],
      [`/v1/integrations/forge/github/${UNKNOWN.replaceAll('-', '')}/repos`, UNKNOWN],
      [`/v1/integrations/gitlab/${ACME_MANAGED.replaceAll('-', '').toUpperCase()}/repos`, ACME_MANAGED],
      [`/v1/integrations/codehost/urn:uuid:${UNKNOWN}/repos`, UNKNOWN],
    ];
    it.each(cases)('GET %s', async (path, id) => {
      await expectText(path, `{"detail":"Integration ${id} not found."}`, { status: 404 });
    });
  });

  describe('GET /v2/deployments filters, end to end', () => {
    const A = ACME_DEPLOYMENT;
    const G = GLOBEX_DEPLOYMENT;
    const [ENV_PROD, ENV_STAGING, TEAM_PAYMENTS] = ['77777777-7777-4777-8777-777777777771', '77777777-7777-4777-8777-777777777772', '77777777-7777-4777-8777-777777777773'];
    const cases: [string, string, string[]][] = [
      [ACME, '', [A]],
      [ACME, 'name_contains=checkout', [A]],
      [ACME, 'name_contains=OUT-PR', [A]],
      [ACME, 'name_contains=checkouts', []],
      [ACME, 'name_contains=checkout_prod', []],
      [ACME, 'name_contains=%25', []],
      [ACME, 'name_contains=', [A]],
      [ACME, 'status=READY', [A]],
      [ACME, 'status=UNUSED', []],
      [ACME, 'status=UNUSED,READY', [A]],
      [ACME, 'status=AWAITING_DATABASE,AWAITING_DELETE,UNKNOWN', []],
      [ACME, 'status=', [A]],
      [ACME, 'remote_reconciled=true', [A]],
      [ACME, 'remote_reconciled=Yes', [A]],
      [ACME, 'remote_reconciled=false', []],
      [ACME, 'remote_reconciled=0', []],
      [ACME, `tag_value_ids=${ENV_PROD}`, [A]],
      [ACME, `tag_value_ids=${ENV_STAGING}`, []],
      [ACME, `tag_value_ids=${ENV_STAGING},${ENV_PROD}`, [A]],
      [ACME, `tag_value_ids=${ENV_PROD},${TEAM_PAYMENTS}`, [A]],
      [ACME, `tag_value_ids=${ENV_STAGING},${TEAM_PAYMENTS}`, []],
      [ACME, `tag_value_ids=${UNKNOWN}`, []],
      [ACME, 'tag_value_ids=', [A]],
      [ACME, 'image_version=1.4.2', [A]],
      [ACME, 'image_version=1.4', []],
      [ACME, 'image_version=', [A]],
      [ACME, 'deployment_type=prod', [A]],
      [ACME, 'deployment_type=dev', []],
      [ACME, `deployment_ids=${A}`, [A]],
      [ACME, `deployment_ids={${A}}`, [A]],
      [ACME, `deployment_ids=${G}`, []],
      [ACME, `deployment_ids=${G},${A.replaceAll('-', '')}`, [A]],
      [ACME, 'deployment_ids=', [A]],
      [ACME, 'status=READY&deployment_type=prod&image_version=1.4.2&remote_reconciled=on&name_contains=prod', [A]],
      [ACME, 'status=READY&deployment_type=dev', []],
      // Repeated keys: the last one wins (an invalid earlier one is not even read).
      [ACME, 'status=UNUSED&status=READY', [A]],
      [ACME, 'status=READY&status=UNUSED', []],
      [ACME, 'deployment_type=nope&deployment_type=prod', [A]],
      [ACME, 'limit=0&limit=5&offset=-1&offset=0', [A]],
      [ACME, 'name_contains=checkout&name_contains=', [A]],
      // Unknown parameters, including differently-cased known ones, are ignored.
      [ACME, 'foo=bar&Status=UNUSED&LIMIT=0&deployment_id=x&status=READY', [A]],
      [GLOBEX, '', [G]],
      [GLOBEX, 'status=UNUSED', [G]],
      [GLOBEX, 'status=READY', []],
      [GLOBEX, 'deployment_type=dev', [G]],
      [GLOBEX, 'name_contains=TENANT', [G]],
      [GLOBEX, `deployment_ids=${A}`, []],
    ];
    it.each(cases)('%s: %s', async (tenant, query, expected) => {
      const response = await get(`/v2/deployments?${query}`, keys.both, { 'X-Tenant-Id': tenant });
      const body = await response.json();
      expect({ status: response.status, ids: body.resources?.map((r: { id: string }) => r.id), offset: body.offset })
        .toEqual({ status: 200, ids: expected, offset: expected.length });
    });
  });
});
