// Every error answer of the REST door, byte for byte as the original FastAPI service gives it
// (docs/decisions.md#rest-errors): authentication and tenants, unknown paths and methods, HEAD, trailing
// slashes, another tenant's integration, and the 422 bodies of pydantic v2 for each kind of invalid parameter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../src/modules/tenancy/api-key.service.ts';
import { displayPrefix } from '../src/modules/tenancy/api-key-secret.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, ACME_DEPLOYMENT, ACME_INTEGRATION, GLOBEX, GLOBEX_INTEGRATION, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { textSummary } from './support/legacy-text.ts';
import { rawRequest } from './support/raw-http.ts';

const DEPLOYMENTS = '/v2/deployments';
const REPOS = `/v1/integrations/codehost/${ACME_INTEGRATION}/repos`;
const ROUTES = [
  DEPLOYMENTS, REPOS, `/v1/integrations/github/${ACME_INTEGRATION}/repos`,
  `/v1/integrations/managed/codehost/${GLOBEX_INTEGRATION}/repos`, `/v1/integrations/forge/github/${GLOBEX_INTEGRATION}/repos`,
  `${DEPLOYMENTS}/${ACME_DEPLOYMENT}`, `${DEPLOYMENTS}/${ACME_DEPLOYMENT}/revisions`, `${DEPLOYMENTS}/${ACME_DEPLOYMENT}/revisions/66666666-6666-4666-8666-666666666661`,
  '/v1/integrations/github/install', '/v1/integrations/codehost/install', '/v1/integrations/forge/github/install', '/v1/integrations/managed/codehost/install',
];
const UNKNOWN = '0f0f0f0f-0000-4000-8000-000000000000';
const STATUSES = "'AWAITING_DATABASE', 'READY', 'UNUSED', 'AWAITING_DELETE' or 'UNKNOWN'";
const INT_MSG = 'Input should be a valid integer, unable to parse string as an integer';
const BOOL_MSG = 'Input should be a valid boolean, unable to interpret input';
const TYPES = "'dev_free', 'dev' or 'prod'";

type Loc = (string | number)[];
const intParsing = (loc: Loc, input: string) => ({ type: 'int_parsing', loc, msg: INT_MSG, input });
const ge = (loc: Loc, input: string, n: number) => ({ type: 'greater_than_equal', loc, msg: `Input should be greater than or equal to ${n}`, input, ctx: { ge: n } });
const le = (loc: Loc, input: string, n: number) => ({ type: 'less_than_equal', loc, msg: `Input should be less than or equal to ${n}`, input, ctx: { le: n } });
const boolParsing = (loc: Loc, input: string) => ({ type: 'bool_parsing', loc, msg: BOOL_MSG, input });
const literal = (loc: Loc, input: string) => ({ type: 'literal_error', loc, msg: `Input should be ${TYPES}`, input, ctx: { expected: TYPES } });
const enumError = (loc: Loc, input: string) => ({ type: 'enum', loc, msg: `Input should be ${STATUSES}`, input, ctx: { expected: STATUSES } });
const uuidParsing = (loc: Loc, input: string, error: string) => ({ type: 'uuid_parsing', loc, msg: `Input should be a valid UUID, ${error}`, input, ctx: { error } });
const q = (name: string, ...index: number[]): Loc => ['query', name, ...index];

describe('REST errors', () => {
  let db: TestDatabase;
  let app: RunningApp;
  let acmeKey: string;
  let globexKey: string;
  let bothKey: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    const cipher = newCipher();
    await importFixture(db.orm.em.fork(), cipher);
    acmeKey = await issueKey(db.orm.em, [ACME]);
    globexKey = await issueKey(db.orm.em, [GLOBEX]);
    bothKey = await issueKey(db.orm.em, [ACME, GLOBEX]);
    app = await startApp(db.orm, cipher);
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  const call = (path: string, headers: Record<string, string> = {}, init: RequestInit = {}) =>
    fetch(`${app.url}${path}`, { redirect: 'manual', ...init, headers });
  /** Status, content type and body text compared byte for byte with `expected`. */
  async function expectBody(response: Response | Promise<Response>, status: number, expected: string) {
    expect(await textSummary(await response, expected)).toEqual({ status, type: 'application/json', body: 'identical' });
  }
  const validation = (...items: object[]) => JSON.stringify({ detail: items });

  describe('authentication and tenants', () => {
    it.each(ROUTES)('401 without a key, with WWW-Authenticate: APIKey: %s', async (path) => {
      const response = await call(path);
      expect(response.headers.get('www-authenticate')).toBe('APIKey');
      await expectBody(response, 401, '{"detail":"Not authenticated"}');
    });

    it('401 "Invalid API key" for unknown and malformed keys, as X-Api-Key or Bearer', async () => {
      const tampered = acmeKey.slice(0, -1) + (acmeKey.endsWith('A') ? 'B' : 'A');
      for (const headers of [{ 'x-api-key': tampered }, { 'x-api-key': 'not-a-key' }, { authorization: `Bearer ${tampered}` }] as Record<string, string>[]) {
        await expectBody(call(DEPLOYMENTS, headers), 401, '{"detail":"Invalid API key"}');
      }
    });

    it('401 "Invalid API key" for a revoked key, on every route', async () => {
      const key = await issueKey(db.orm.em, [ACME]);
      expect((await call(DEPLOYMENTS, { 'x-api-key': key })).status).toBe(200);
      await revokeApiKey(db.orm.em.fork(), displayPrefix(key));
      for (const path of ROUTES) await expectBody(call(path, { 'x-api-key': key }), 401, '{"detail":"Invalid API key"}');
    });

    it('403 for a tenant the key was not granted, naming it', async () => {
      for (const path of ROUTES) {
        await expectBody(call(path, { 'x-api-key': acmeKey, 'x-tenant-id': GLOBEX }), 403, `{"detail":"Tenant ${GLOBEX} is not accessible with this API key"}`);
      }
    });

    it('403 "requires workspace specification" for a two-tenant key without X-Tenant-Id', async () => {
      for (const path of ROUTES) await expectBody(call(path, { 'x-api-key': bothKey }), 403, '{"detail":"requires workspace specification"}');
    });

    it('accepts Authorization: Bearer <key> (scheme in any case) and X-Tenant-ID in any spelling', async () => {
      for (const headers of [{ Authorization: `Bearer ${acmeKey}` }, { authorization: `bearer ${acmeKey}` }, { 'X-API-KEY': acmeKey, 'X-TENANT-ID': ACME }] as Record<string, string>[]) {
        const response = await call(DEPLOYMENTS, headers);
        expect({ status: response.status, ids: (await response.json()).resources.map((r: { id: string }) => r.id) }).toEqual({ status: 200, ids: [ACME_DEPLOYMENT] });
      }
    });

    it('checks the key before the parameters', async () => {
      await expectBody(call(`${DEPLOYMENTS}?limit=0&deployment_type=x`), 401, '{"detail":"Not authenticated"}');
      await expectBody(call('/v1/integrations/codehost/not-a-uuid/repos', { 'x-api-key': 'nope' }), 401, '{"detail":"Invalid API key"}');
      await expectBody(call(`${DEPLOYMENTS}?limit=0`, { 'x-api-key': bothKey }), 403, '{"detail":"requires workspace specification"}');
    });
  });

  describe('routing: 404, 405, HEAD, trailing slash', () => {
    // `/` tells a client where the API is (self-hosted-pages.test.ts).
    const unknownPaths = ['/v3/x', '/v1/integrations', '/v2/deployments/x/extra', `/v2/deployments/${ACME_DEPLOYMENT}/revisions/x/y`, '/V2/deployments',
      '/v1/integrations/install', '/v1/integrations/forge/gitlab/install', `/v1/integrations/codehost/${ACME_INTEGRATION}`,
      `/v1/integrations/codehost/${ACME_INTEGRATION}/repos/x`, '/v1/integrations/forge/gitlab/x/y/repos', '/v3/x/'];
    it.each(unknownPaths)('404 {"detail":"Not Found"} for %s, key or no key', async (path) => {
      await expectBody(call(path), 404, '{"detail":"Not Found"}');
      await expectBody(call(`${path}?limit=0`, { 'x-api-key': acmeKey }), 404, '{"detail":"Not Found"}');
    });

    // The paths that also take writes (docs/rest.md#writes); every other path is read-only.
    const WRITABLE: Record<string, string[]> = {
      [DEPLOYMENTS]: ['DELETE', 'GET', 'HEAD', 'POST'],
      [`${DEPLOYMENTS}/${ACME_DEPLOYMENT}`]: ['DELETE', 'GET', 'HEAD', 'PATCH'],
    };
    it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('405 {"detail":"Method Not Allowed"} with Allow for %s on every route without it', async (method) => {
      for (const path of ROUTES) {
        const allowed = WRITABLE[path] ?? ['GET', 'HEAD'];
        if (allowed.includes(method)) continue;
        const response = await call(path, { 'x-api-key': acmeKey, 'content-type': 'application/json' }, { method, body: method === 'DELETE' ? undefined : '{}' });
        expect(response.headers.get('allow')?.split(/,\s*/).sort()).toEqual(allowed);
        await expectBody(response, 405, '{"detail":"Method Not Allowed"}');
      }
      await expectBody(call('/v3/x', {}, { method }), 404, '{"detail":"Not Found"}');
    });

    it('HEAD answers with GET\'s status and headers and no body', async () => {
      for (const [headers, status] of [[{ 'x-api-key': acmeKey }, 200], [{}, 401], [{ 'x-api-key': bothKey }, 403]] as const) {
        const response = await call(`${DEPLOYMENTS}?limit=1`, headers, { method: 'HEAD' });
        expect({ status: response.status, type: response.headers.get('content-type'), body: await response.text() })
          .toEqual({ status, type: 'application/json', body: '' });
      }
      const missing = await call('/v3/x', {}, { method: 'HEAD' });
      expect({ status: missing.status, body: await missing.text() }).toEqual({ status: 404, body: '' });
    });

    // A client reading the legacy service can rely on the length being announced; nothing is sent chunked.
    it('every answer says its length (Content-Length), as uvicorn does, and HEAD says GET\'s', async () => {
      const answers: [string, string, Record<string, string>][] = [
        ['GET', `${DEPLOYMENTS}?limit=2`, { 'x-api-key': acmeKey }],
        ['GET', REPOS, { 'x-api-key': acmeKey }],
        ['GET', `${DEPLOYMENTS}/${ACME_DEPLOYMENT}`, { 'x-api-key': acmeKey }],
        ['GET', `${DEPLOYMENTS}?limit=x`, { 'x-api-key': acmeKey }],
        ['GET', DEPLOYMENTS, {}],
        ['GET', '/v3/x', {}],
        ['POST', DEPLOYMENTS, { 'x-api-key': acmeKey }],
        ['PUT', DEPLOYMENTS, { 'x-api-key': acmeKey }],
      ];
      const statuses: number[] = [];
      const lengths: number[] = [];
      for (const [method, path, headers] of answers) {
        const answer = await rawRequest(`${app.url}${path}`, { method, headers });
        statuses.push(answer.status);
        lengths.push(answer.body.length);
        expect({ path, length: Number(answer.headers['content-length']), chunked: answer.headers['transfer-encoding'] })
          .toEqual({ path, length: answer.body.length, chunked: undefined });
      }
      expect(statuses).toEqual([200, 200, 200, 422, 401, 404, 403, 405]);
      const head = await rawRequest(`${app.url}${DEPLOYMENTS}?limit=2`, { method: 'HEAD', headers: { 'x-api-key': acmeKey } });
      expect({ length: Number(head.headers['content-length']), body: head.body.length }).toEqual({ length: lengths[0], body: 0 });
    });

    // uvicorn percent-decodes the path before Starlette routes it: `%73` is an `s`, `%2F` a real separator.
    it('routes on the percent-decoded path, as uvicorn and Starlette do', async () => {
      const headers = { 'x-api-key': acmeKey };
      const [plain, encoded] = await Promise.all([call(`${DEPLOYMENTS}?limit=1`, headers), call('/v2/deployment%73?limit=1', headers)]);
      await expectBody(encoded, 200, await plain.text());
      const repos = await (await call(REPOS, headers)).text();
      await expectBody(call(`/v1/integrations/codehost/${ACME_INTEGRATION}%2Frepos`, headers), 200, repos);
      await expectBody(call('/v1/integrations/codehost/a%2Fb/repos', headers), 404, '{"detail":"Not Found"}');
    });

    it('307 from a trailing slash to the path without it, query kept, before authentication', async () => {
      for (const [path, query] of [[DEPLOYMENTS, '?limit=1&status=READY'], [REPOS, ''], [`/v1/integrations/forge/github/${UNKNOWN}/repos`, '?x=1']]) {
        const response = await call(`${path}/${query}`);
        expect({ status: response.status, location: response.headers.get('location'), body: await response.text() })
          .toEqual({ status: 307, location: `${app.url}${path}${query}`, body: '' });
      }
    });
  });

  describe('another tenant\'s integration is indistinguishable from an unknown one', () => {
    const notFound = (id: string) => `{"detail":"Integration ${id} not found."}`;
    it.each([
      [() => acmeKey, `/v1/integrations/managed/codehost/${GLOBEX_INTEGRATION}/repos`, GLOBEX_INTEGRATION],
      [() => acmeKey, `/v1/integrations/forge/github/${GLOBEX_INTEGRATION}/repos`, GLOBEX_INTEGRATION],
      [() => acmeKey, `/v1/integrations/codehost/${GLOBEX_INTEGRATION}/repos`, GLOBEX_INTEGRATION],
      [() => globexKey, `/v1/integrations/codehost/${ACME_INTEGRATION}/repos`, ACME_INTEGRATION],
      [() => globexKey, `/v1/integrations/github/${ACME_INTEGRATION}/repos`, ACME_INTEGRATION],
      [() => globexKey, `/v1/integrations/codehost/${UNKNOWN}/repos`, UNKNOWN],
    ])('%#: 404 with the same body as an unknown id', async (key, path, id) => {
      await expectBody(call(path, { 'x-api-key': key() }), 404, notFound(id));
    });
  });

  describe('422: pydantic v2 validation errors, byte for byte', () => {
    const cases: [string, object[]][] = [
      ['limit=0', [ge(q('limit'), '0', 1)]],
      ['limit=-5', [ge(q('limit'), '-5', 1)]],
      ['limit=101', [le(q('limit'), '101', 100)]],
      ['limit=99999999999999999999999', [le(q('limit'), '99999999999999999999999', 100)]],
      ['offset=-1', [ge(q('offset'), '-1', 0)]],
      ['offset=-99999999999999999999999', [ge(q('offset'), '-99999999999999999999999', 0)]],
      ['limit=abc', [intParsing(q('limit'), 'abc')]],
      ['limit=1.5', [intParsing(q('limit'), '1.5')]],
      ['limit=1e1', [intParsing(q('limit'), '1e1')]],
      ['limit=', [intParsing(q('limit'), '')]],
      ['offset=0x10', [intParsing(q('offset'), '0x10')]],
      ['remote_reconciled=maybe', [boolParsing(q('remote_reconciled'), 'maybe')]],
      ['remote_reconciled=', [boolParsing(q('remote_reconciled'), '')]],
      ['remote_reconciled=%20true', [boolParsing(q('remote_reconciled'), ' true')]],
      ['deployment_type=staging', [literal(q('deployment_type'), 'staging')]],
      ['deployment_type=PROD', [literal(q('deployment_type'), 'PROD')]],
      ['deployment_type=', [literal(q('deployment_type'), '')]],
      ['status=ready', [enumError(q('status', 0), 'ready')]],
      ['status=READY,GONE,UNUSED,', [enumError(q('status', 1), 'GONE'), enumError(q('status', 3), '')]],
      ['deployment_ids=nope', [uuidParsing(q('deployment_ids', 0), 'nope', 'invalid character: found `n` at 1')]],
      [`deployment_ids=${ACME_DEPLOYMENT},123,%C3%A9`, [
        uuidParsing(q('deployment_ids', 1), '123', 'invalid length: expected length 32 for simple format, found 3'),
        uuidParsing(q('deployment_ids', 2), 'é', 'invalid character: found `é` at 1')]],
      [`deployment_ids=${ACME_DEPLOYMENT},`, [uuidParsing(q('deployment_ids', 1), '', 'invalid length: expected length 32 for simple format, found 0')]],
      ['tag_value_ids=77777777-7777-4777-8777-77777777777', [
        uuidParsing(q('tag_value_ids', 0), '77777777-7777-4777-8777-77777777777', 'invalid group length in group 4: expected 12, found 11')]],
      // Every invalid parameter at once, in the order the parameters are declared (not the query's order).
      ['deployment_ids=x&deployment_type=x&tag_value_ids=1-2&remote_reconciled=x&status=x&offset=x&limit=0&name_contains=&image_version=', [
        ge(q('limit'), '0', 1), intParsing(q('offset'), 'x'), enumError(q('status', 0), 'x'), boolParsing(q('remote_reconciled'), 'x'),
        uuidParsing(q('tag_value_ids', 0), '1-2', 'invalid group count: expected 5, found 2'), literal(q('deployment_type'), 'x'),
        uuidParsing(q('deployment_ids', 0), 'x', 'invalid character: found `x` at 1')]],
    ];
    it.each(cases)('GET /v2/deployments?%s', async (query, items) => {
      await expectBody(call(`${DEPLOYMENTS}?${query}`, { 'x-api-key': acmeKey }), 422, validation(...items));
    });

    // pydantic-core refuses an integer string of more than 4300 characters (sign included; Python's int limit)
    // with its own error type, before any range check; 4300 digits still parse.
    it('limit and offset beyond 4300 characters: int_parsing_size, not a range error or an echoed offset', async () => {
      const [huge, negative] = ['9'.repeat(4301), `-${'9'.repeat(4300)}`];
      const size = (name: string, input: string) =>
        ({ type: 'int_parsing_size', loc: q(name), msg: 'Unable to parse input string as an integer, exceeded maximum size', input });
      await expectBody(call(`${DEPLOYMENTS}?limit=${huge}&offset=${negative}`, { 'x-api-key': acmeKey }), 422,
        validation(size('limit', huge), size('offset', negative)));
      await expectBody(call(`${DEPLOYMENTS}?offset=${huge}`, { 'x-api-key': acmeKey }), 422, validation(size('offset', huge)));
    });

    it.each([
      ['not-a-uuid', 'invalid character: found `n` at 1'],
      ['not%20a%20uuid', 'invalid character: found `n` at 1', 'not a uuid'],
      ['12345', 'invalid length: expected length 32 for simple format, found 5'],
      [`${ACME_INTEGRATION}0`, 'invalid group length in group 4: expected 12, found 13'],
      [ACME_INTEGRATION.replace('-', ''), 'invalid group count: expected 5, found 4'],
      ['33333333-333-4333-8333-3333333333333', 'invalid group length in group 1: expected 4, found 3'],
    ])('path id %s: uuid_parsing at ["path","integration_id"]', async (segment, error, input = segment) => {
      for (const prefix of ['/v1/integrations/codehost', '/v1/integrations/github', '/v1/integrations/managed/codehost', '/v1/integrations/forge/github']) {
        await expectBody(call(`${prefix}/${segment}/repos`, { 'x-api-key': acmeKey }), 422, validation(uuidParsing(['path', 'integration_id'], input, error)));
      }
    });

    it('empty text and list filters are no filter at all (200), at most 100 ids', async () => {
      for (const query of ['name_contains=', 'status=', 'deployment_ids=', 'tag_value_ids=', 'image_version=', 'name_contains=&status=&deployment_ids=']) {
        const response = await call(`${DEPLOYMENTS}?${query}`, { 'x-api-key': acmeKey });
        expect({ query, status: response.status, offset: (await response.json()).offset }).toEqual({ query, status: 200, offset: 1 });
      }
      expect((await call(`${DEPLOYMENTS}?deployment_ids=${Array(100).fill(ACME_DEPLOYMENT).join(',')}`, { 'x-api-key': acmeKey })).status).toBe(200);
      const tooMany = await call(`${DEPLOYMENTS}?deployment_ids=${Array(101).fill(ACME_DEPLOYMENT).join(',')}`, { 'x-api-key': acmeKey });
      const { detail } = await tooMany.json();
      expect({ status: tooMany.status, type: detail[0].type, loc: detail[0].loc, ctx: detail[0].ctx })
        .toEqual({ status: 422, type: 'too_long', loc: q('deployment_ids'), ctx: { field_type: 'List', max_length: 100, actual_length: 101 } });
    });
  });
});
