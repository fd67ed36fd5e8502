// The REST routes are served by the operation runner (src/runner/rest-requests.ts). A legacy client must not be
// able to tell it from Yoga serving them through its envelop (src/http/legacy-rest.plugin.ts, AppOptions.runner
// false): the same requests, sent in the same order to both services, get the same status, the same headers
// (but the date, the request id, and the rate-limit reset within a second) and the same bytes, and the services
// count the same. The corpus calls every read route of REST_ROUTES the ways legacy clients call it and get it wrong:
// pages with and without parameters, HEAD, FastAPI's 422s, other tenants' ids, missing and wrong keys, tenants
// not granted, secrets with and without the scope, compression, Starlette's redirects, 404s and 405s, and CORS.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppOptions } from '../src/app.ts';
import type { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import { REST_ROUTES } from '../src/rest/routes.ts';
import type { RunningApp } from './support/app-server.ts';
import {
  ACME, ACME_DEPLOYMENT, ACME_INTEGRATION, GLOBEX, GLOBEX_DEPLOYMENT, GLOBEX_INTEGRATION, importFixture, issueKey, newCipher,
} from './support/fixtures.ts';
import { importExtra, newerAcmeDeployments, type Doc, type DocIntegration } from './support/graphql-expect.ts';
import { rawRequest, type RawResponse } from './support/raw-http.ts';
import {
  GLOBEX_APP, GLOBEX_APP_REVISIONS, HISTORY_APP, HISTORY_REVISIONS, REVISIONS_DOCUMENT, type DocRevision,
} from './support/revision-data.ts';
import { expectSameAnswer, expectSameCounts, runnerRuns, servicePairs } from './support/runner-and-yoga.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const UNKNOWN = '0f0f0f0f-0000-4000-8000-000000000000';
const CHECKOUT_DEPLOYED = '66666666-6666-4666-8666-666666666661';
// Beside the fixture's acme-org (github) and GLOBEX's globex-managed: ACME's managed integration and a
// code-host integration of another host, each with repositories, and more of each kind, so that every listing
// has an answer large enough to be compressed; so have a page of 100 deployments (each with the fixture's two
// secrets), history-app's 25 revisions and one revision with long paths.
const [ACME_MANAGED, ACME_LAB] = ['cccccccc-1000-4000-8000-000000000002', 'cccccccc-1000-4000-8000-000000000001'];
const repository = (id: number, owner: string) => ({ id, name: `repo-${id}`, owner, url: `https://example.com/${owner}/repo-${id}`, default_branch: 'main' });
const repositories = (from: number, owner: string) => Array.from({ length: 30 }, (_, i) => repository(from + i, i % 2 ? owner : owner.toUpperCase()));
const moreOfKind = (prefix: string, kind: 'codehost' | 'managed') => Array.from({ length: 15 }, (_, i) => ({
  id: `${prefix}-4000-8000-${String(i).padStart(12, '0')}`, tenant_id: ACME, kind, codehost: 'github', name: `${kind}-${i}`, installation_id: 100 + i, repositories: [],
}));
const INTEGRATIONS: Array<DocIntegration & { installation_id: number }> = [
  { id: ACME_MANAGED, tenant_id: ACME, kind: 'managed', codehost: 'github', name: 'acme-managed', installation_id: 2 ** 40, repositories: repositories(1000, 'acme') },
  { id: ACME_LAB, tenant_id: ACME, kind: 'codehost', codehost: 'gitlab', name: 'Acme-Lab', installation_id: 7, repositories: repositories(2000, 'lab') },
  ...moreOfKind('cccccccc-2000', 'codehost'), ...moreOfKind('cccccccc-3000', 'managed'),
];
const LONG_REVISION = 'eeeeeeee-1000-4000-8000-000000000001';
const longPath = (name: string) => `${name}/${'nested/'.repeat(60)}${name}.json`;
const LONG: DocRevision = {
  id: LONG_REVISION, status: 'DEPLOYED', created_at: '2030-01-01T00:00:00.000Z', source: 'github',
  source_revision_config: { repo_ref: 'main', graph_config_path: longPath('graph'), image_uri: longPath('image'), source_tarball_path: longPath('tarball'), repo_commit_sha: null },
};
const EXTRA: Doc = {
  integrations: INTEGRATIONS,
  deployments: newerAcmeDeployments(120, (n) => ({
    name: `app-${n}`,
    status: n % 3 ? 'READY' : 'UNUSED',
    ...(n === 0 && { revisions: [LONG] }),
  })),
};
const LONG_REVISION_DEPLOYMENT = EXTRA.deployments![0]!.id;
// Listeners (no import takes them): 30 of ACME's, one of them with namespaces enough to be compressed alone, and
// one of GLOBEX's.
const ACME_LISTENER = 'dddddddd-1000-4000-8000-000000000000';
const GLOBEX_LISTENER = 'dddddddd-2000-4000-8000-000000000000';
const LISTENERS = [
  ...Array.from({ length: 30 }, (_, n) => [`dddddddd-1000-4000-8000-${String(n).padStart(12, '0')}`, ACME, `acme-cluster-${n}`,
    Array.from({ length: n === 0 ? 80 : 3 }, (__, i) => `namespace-${i}`)] as const),
  [GLOBEX_LISTENER, GLOBEX, 'globex-cluster', ['apps']] as const,
];

let db: TestDatabase;
let cipher: SecretCipher;
const services = servicePairs(() => cipher);
let keys: { acme: string; acmeSecrets: string; globex: string; both: string };

beforeAll(async () => {
  db = await createTestDatabase();
  cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  for (const doc of [EXTRA, REVISIONS_DOCUMENT]) await importExtra(db.orm.em, cipher, doc);
  for (const [id, tenant, computeId, namespaces] of LISTENERS) {
    await db.query(`insert into listener (id, tenant_id, compute_type, compute_id, k8s_namespaces, version, created_at, updated_at)
      values ($1, $2, 'k8s', $3, $4::jsonb, '1.0', '2030-01-01T00:00:00Z'::timestamptz + make_interval(secs => $5), now())`, [id, tenant, computeId, JSON.stringify(namespaces), Number(id.slice(-4))]);
  }
  keys = {
    acme: await issueKey(db.orm.em, [ACME]),
    acmeSecrets: await issueKey(db.orm.em, [ACME], true),
    globex: await issueKey(db.orm.em, [GLOBEX]),
    both: await issueKey(db.orm.em, [ACME, GLOBEX]),
  };
});
afterAll(async () => {
  await services.close();
  await db?.drop();
});

/** The service with the operation runner (the default), and the same service with Yoga serving every request. */
const pair = (perMinute?: number, options?: AppOptions) => services.pair(db.orm, perMinute, options);

interface Case {
  name: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  /** The status the case is written for (checked where sendBoth is told to): a corpus that only 500s proves nothing. */
  status: number;
  /** The Content-Encoding it is written for (checked likewise), where it asks for one. */
  encoding?: string;
}

// The same Host to both services (on their own ports): a redirect's Location is made from it.
const send = (base: string, { path, method = 'GET', headers = {} }: Case) =>
  rawRequest(`${base}${path}`, { method, headers: { host: 'gateway.example.com', ...headers } });

/** How one route is called: a path that succeeds for ACME's key, and the paths and parameters that go wrong. */
interface RouteCalls {
  /** A path the route answers 200 for ACME's key, with an answer large enough to be compressed. */
  ok: string;
  /** More successful calls: other parameters, other ids, other tenants. */
  more: Array<[name: string, path: string, headers?: Record<string, string>]>;
  /** Calls answered 404 (unknown ids, another tenant's) and 422 (FastAPI's validation). */
  notFound: string[];
  invalid: string[];
}

const repos = (prefix: string, id: string) => `/v1/integrations/${prefix}/${id}/repos`;
const deployment = (id: string) => `/v2/deployments/${id}`;
const revisions = (id: string, query = '') => `/v2/deployments/${id}/revisions${query}`;
const revision = (id: string, revisionId: string) => `/v2/deployments/${id}/revisions/${revisionId}`;

/** Every read route of REST_ROUTES, by its path template. */
function routeCalls(): Record<string, RouteCalls> {
  const globexChosen = () => ({ 'x-api-key': keys.both, 'x-tenant-id': GLOBEX });
  return {
    '/v1/integrations/codehost/{integration_id}/repos': {
      ok: repos('codehost', ACME_LAB),
      more: [['another integration', repos('codehost', ACME_INTEGRATION)], ['upper-case id', repos('codehost', ACME_INTEGRATION.toUpperCase())],
        ['an ignored query parameter', `${repos('codehost', ACME_INTEGRATION)}?limit=1`]],
      notFound: [repos('codehost', UNKNOWN), repos('codehost', GLOBEX_INTEGRATION), repos('codehost', ACME_MANAGED)],
      invalid: [repos('codehost', 'not-a-uuid'), repos('codehost', `${ACME_INTEGRATION}0`)],
    },
    '/v1/integrations/{codehost}/{integration_id}/repos': {
      ok: repos('gitlab', ACME_LAB),
      more: [['the original\'s path', repos('github', ACME_INTEGRATION)], ['an ignored query parameter', `${repos('github', ACME_INTEGRATION)}?x=1`]],
      notFound: [repos('gitlab', ACME_INTEGRATION), repos('github', UNKNOWN), repos('github', GLOBEX_INTEGRATION), repos('github', ACME_MANAGED), repos('%C3%A9', ACME_INTEGRATION),
        repos('github', '')],
      invalid: [repos('github', 'not-a-uuid'), repos('github', ACME_INTEGRATION.slice(1))],
    },
    '/v1/integrations/managed/codehost/{integration_id}/repos': {
      ok: repos('managed/codehost', ACME_MANAGED),
      more: [['another tenant chosen', repos('managed/codehost', GLOBEX_INTEGRATION), globexChosen()],
        ['an ignored query parameter', `${repos('managed/codehost', ACME_MANAGED)}?offset=2`]],
      notFound: [repos('managed/codehost', UNKNOWN), repos('managed/codehost', GLOBEX_INTEGRATION), repos('managed/codehost', ACME_INTEGRATION)],
      invalid: [repos('managed/codehost', 'x'), repos('managed/codehost', ACME_MANAGED.replaceAll('-', '_'))],
    },
    '/v1/integrations/forge/github/{integration_id}/repos': {
      ok: repos('forge/github', ACME_MANAGED),
      more: [['another tenant chosen', repos('forge/github', GLOBEX_INTEGRATION), globexChosen()],
        ['an ignored query parameter', `${repos('forge/github', ACME_MANAGED)}?limit=x`],
        ['an id in braces, as Python\'s UUID reads it', repos('forge/github', `{${ACME_MANAGED}}`)]],
      notFound: [repos('forge/github', UNKNOWN), repos('forge/github', GLOBEX_INTEGRATION), repos('forge/github', ACME_INTEGRATION)],
      invalid: [repos('forge/github', '123'), repos('forge/github', `${ACME_MANAGED}}`)],
    },
    '/v1/integrations/codehost/install': {
      ok: '/v1/integrations/codehost/install',
      more: [['another tenant', '/v1/integrations/codehost/install', { 'x-api-key': keys.globex }],
        ['an ignored query parameter', '/v1/integrations/codehost/install?limit=0']],
      notFound: [], invalid: [],
    },
    '/v1/integrations/{codehost}/install': {
      ok: '/v1/integrations/github/install',
      more: [['another code host', '/v1/integrations/gitlab/install'], ['a code host without integrations', '/v1/integrations/bitbucket/install'],
        ['an odd code-host segment', '/v1/integrations/%C3%A9/install'], ['a NUL code host', '/v1/integrations/%00/install'],
        ['an ignored query parameter', '/v1/integrations/github/install?status=x']],
      notFound: [], invalid: [],
    },
    '/v1/integrations/managed/codehost/install': {
      ok: '/v1/integrations/managed/codehost/install',
      more: [['another tenant', '/v1/integrations/managed/codehost/install', { 'x-api-key': keys.globex }],
        ['an ignored query parameter', '/v1/integrations/managed/codehost/install?a=b']],
      notFound: [], invalid: [],
    },
    '/v1/integrations/forge/github/install': {
      ok: '/v1/integrations/forge/github/install',
      more: [['another tenant chosen', '/v1/integrations/forge/github/install', globexChosen()],
        ['an ignored query parameter', '/v1/integrations/forge/github/install?offset=-1']],
      notFound: [], invalid: [],
    },
    '/v2/deployments': {
      ok: '/v2/deployments?limit=100',
      more: [
        ['the default page', '/v2/deployments'],
        ['a page by limit and offset', '/v2/deployments?limit=5&offset=3'],
        ['the last page', '/v2/deployments?limit=100&offset=100'],
        ['past the end', '/v2/deployments?offset=1000'],
        ['an offset beyond what a number holds', `/v2/deployments?offset=${2n ** 70n}`],
        ['lax integers', '/v2/deployments?limit=+05&offset=0'],
        ['a repeated parameter (the last wins)', '/v2/deployments?limit=500&limit=2'],
        ['name_contains', '/v2/deployments?name_contains=APP-1'],
        ['name_contains with a wildcard', '/v2/deployments?name_contains=%25_'],
        ['statuses', '/v2/deployments?status=READY,UNUSED&limit=3'],
        ['an empty status', '/v2/deployments?status=&limit=2'],
        ['remote_reconciled', '/v2/deployments?remote_reconciled=yes'],
        ['tag_value_ids', '/v2/deployments?tag_value_ids=77777777-7777-4777-8777-777777777771,77777777-7777-4777-8777-777777777773'],
        ['image_version', '/v2/deployments?image_version=1.4.2&limit=3'],
        ['deployment_type', '/v2/deployments?deployment_type=prod&limit=2'],
        ['deployment_ids, one another tenant\'s', `/v2/deployments?deployment_ids=${ACME_DEPLOYMENT},${GLOBEX_DEPLOYMENT}`],
        ['another tenant chosen', '/v2/deployments', globexChosen()],
      ],
      notFound: [],
      invalid: [
        '/v2/deployments?limit=0', '/v2/deployments?limit=101', '/v2/deployments?limit=abc', '/v2/deployments?limit=1.5',
        `/v2/deployments?limit=${'9'.repeat(5000)}`, '/v2/deployments?offset=-1', '/v2/deployments?status=READY,nope',
        '/v2/deployments?remote_reconciled=maybe', '/v2/deployments?deployment_type=PROD', '/v2/deployments?deployment_ids=x,y',
        `/v2/deployments?deployment_ids=${Array.from({ length: 101 }, () => UNKNOWN).join(',')}`, '/v2/deployments?name_contains=a%00b',
        '/v2/deployments?limit=0&offset=-1&status=x&tag_value_ids=1',
      ],
    },
    '/v2/deployments/{deployment_id}': {
      ok: deployment(ACME_DEPLOYMENT),
      more: [['upper case, no dashes', deployment(ACME_DEPLOYMENT.toUpperCase().replaceAll('-', ''))],
        ['a deployment of the page', deployment(EXTRA.deployments![7]!.id)], ['another tenant chosen', deployment(GLOBEX_DEPLOYMENT), globexChosen()],
        ['an ignored query parameter', `${deployment(ACME_DEPLOYMENT)}?limit=0`]],
      notFound: [deployment(UNKNOWN), deployment(GLOBEX_DEPLOYMENT), deployment(GLOBEX_APP)],
      invalid: [deployment('not-a-uuid'), deployment(`${ACME_DEPLOYMENT}x`), deployment('%E2%9C%93')],
    },
    '/v2/deployments/{deployment_id}/revisions': {
      ok: revisions(HISTORY_APP, '?limit=100'),
      more: [['the default page', revisions(ACME_DEPLOYMENT)], ['a page by limit and offset', revisions(HISTORY_APP, '?limit=4&offset=6')],
        ['statuses', revisions(HISTORY_APP, '?status=DEPLOYED,BUILDING')], ['remote_reconciled', revisions(HISTORY_APP, '?remote_reconciled=false&limit=3')],
        ['past the end', revisions(HISTORY_APP, '?offset=99')], ['another tenant chosen', revisions(GLOBEX_APP), globexChosen()]],
      notFound: [revisions(UNKNOWN), revisions(GLOBEX_APP), revisions(GLOBEX_DEPLOYMENT, '?limit=1')],
      invalid: [revisions('nope'), revisions(HISTORY_APP, '?limit=101'), revisions(HISTORY_APP, '?limit=-3'), revisions(HISTORY_APP, '?status=READY'),
        revisions(HISTORY_APP, '?remote_reconciled=2'), revisions('nope', '?limit=0')],
    },
    '/v2/listeners': {
      ok: '/v2/listeners?limit=100',
      more: [['the default page', '/v2/listeners'], ['a page by limit and offset', '/v2/listeners?limit=5&offset=3'], ['past the end', '/v2/listeners?offset=1000'],
        ['another tenant chosen', '/v2/listeners', globexChosen()]],
      notFound: [],
      invalid: ['/v2/listeners?limit=0', '/v2/listeners?limit=101', '/v2/listeners?offset=-1', '/v2/listeners?limit=abc&offset=x'],
    },
    '/v2/listeners/{listener_id}': {
      ok: `/v2/listeners/${ACME_LISTENER}`,
      more: [['upper case', `/v2/listeners/${ACME_LISTENER.toUpperCase()}`], ['another tenant chosen', `/v2/listeners/${GLOBEX_LISTENER}`, globexChosen()]],
      notFound: [`/v2/listeners/${UNKNOWN}`, `/v2/listeners/${GLOBEX_LISTENER}`],
      invalid: ['/v2/listeners/not-a-uuid'],
    },
    '/v2/deployments/{deployment_id}/revisions/{revision_id}': {
      ok: revision(LONG_REVISION_DEPLOYMENT, LONG_REVISION),
      more: [['a revision of the fixture', revision(ACME_DEPLOYMENT, CHECKOUT_DEPLOYED)], ['an older-format revision', revision(HISTORY_APP, HISTORY_REVISIONS[3]!.id)], ['upper-case ids', revision(HISTORY_APP.toUpperCase(), HISTORY_REVISIONS[4]!.id.toUpperCase())],
        ['another tenant chosen', revision(GLOBEX_APP, GLOBEX_APP_REVISIONS[0]!), globexChosen()]],
      notFound: [revision(UNKNOWN, CHECKOUT_DEPLOYED), revision(ACME_DEPLOYMENT, UNKNOWN), revision(ACME_DEPLOYMENT, LONG_REVISION), revision(ACME_DEPLOYMENT, HISTORY_REVISIONS[0]!.id),
        revision(GLOBEX_APP, GLOBEX_APP_REVISIONS[0]!)],
      invalid: [revision(ACME_DEPLOYMENT, 'nope'), revision('nope', CHECKOUT_DEPLOYED), revision('a', 'b')],
    },
  };
}

/** The last character of a path percent-encoded (uvicorn decodes it: the same route). */
const percentEncodedLast = (path: string) => `${path.slice(0, -1)}%${path.charCodeAt(path.length - 1).toString(16).toUpperCase()}`;

/** Every way the corpus calls one route. */
function casesOf(template: string, calls: RouteCalls): Case[] {
  const key = { 'x-api-key': keys.acme };
  const ok = calls.ok;
  const [okPath, okQuery] = ok.split('?') as [string, string | undefined];
  const named = (name: string) => `${template}: ${name}`;
  return [
    { name: named('success'), path: ok, headers: key, status: 200 },
    ...calls.more.map(([name, path, headers = key]) => ({ name: named(name), path, headers, status: 200 })),
    { name: named('HEAD'), path: ok, method: 'HEAD', headers: key, status: 200 },
    { name: named('HEAD, compressed'), path: ok, method: 'HEAD', headers: { ...key, 'accept-encoding': 'gzip' }, status: 200 },
    { name: named('the read-secrets scope'), path: ok, headers: { 'x-api-key': keys.acmeSecrets }, status: 200 },
    { name: named('a Bearer token'), path: ok, headers: { authorization: `Bearer ${keys.acme}` }, status: 200 },
    ...[['gzip', 'gzip'], ['br', 'br'], ['gzip, deflate, br, zstd', 'zstd'], ['identity'], ['gzip;q=0, br;q=0, zstd;q=0']].map(([accept, encoding]) =>
      ({ name: named(`Accept-Encoding: ${accept}`), path: ok, headers: { ...key, 'accept-encoding': accept! }, status: 200, encoding })),
    ...calls.notFound.map((path) => ({ name: named(`404 ${path}`), path, headers: key, status: 404 })),
    ...calls.invalid.map((path) => ({ name: named(`422 ${path.slice(0, 120)}`), path, headers: key, status: 422 })),
    { name: named('no key'), path: ok, status: 401 },
    { name: named('a wrong key'), path: ok, headers: { 'x-api-key': 'dmk_not-a-key-of-this-service' }, status: 401 },
    { name: named('a tenant not granted'), path: ok, headers: { ...key, 'x-tenant-id': GLOBEX }, status: 403 },
    { name: named('two tenants, none chosen'), path: ok, headers: { 'x-api-key': keys.both }, status: 403 },
    { name: named('a trailing slash'), path: `${okPath}/${okQuery === undefined ? '' : `?${okQuery}`}`, headers: key, status: 307 },
    { name: named('a trailing slash, HEAD, no key'), path: `${okPath}/`, method: 'HEAD', status: 307 },
    { name: named('percent-encoded'), path: `${percentEncodedLast(okPath)}${okQuery === undefined ? '' : `?${okQuery}`}`, headers: key, status: 200 },
    { name: named('an unknown path below it'), path: `${okPath}/nope/nope`, headers: key, status: 404 },
    ...['POST', 'DELETE', 'PUT', 'OPTIONS'].filter((method) => !(writeMethodsOf(template) as string[]).includes(method))
      .map((method) => ({ name: named(method), path: ok, method, headers: key, status: 405 })),
  ];
}

/** Paths of the REST door that no route names, and one that is a route's once decoded. */
const unknownPaths = (): Case[] => [
  { name: 'an unknown path under /v2', path: '/v2/nope', status: 404 },
  { name: 'an unknown path under /v2, with a key', path: '/v2/deployments/a/b/c/d', headers: { 'x-api-key': keys.acme }, status: 404 },
  { name: 'an unknown path under /v1', path: '/v1/integrations', status: 404 },
  { name: '/v2 itself', path: '/v2', status: 404 },
  { name: '/v2/, a slash', path: '/v2/', status: 404 },
  { name: 'a double slash', path: '//v2/deployments', status: 404 },
  { name: 'an unknown path, POST', path: '/v2/nope', method: 'POST', status: 404 },
  // Decoded as uvicorn decodes it: /v2/deployments, which wants a key.
  { name: 'a percent-encoded slash', path: '/v2%2Fdeployments', status: 401 },
];

// The corpus is the read routes' (the writes change the data both services share: test/rest-writes.test.ts).
const READ_ROUTES = REST_ROUTES.filter((route) => (route.method ?? 'GET') === 'GET');
const writeMethodsOf = (template: string) => REST_ROUTES.filter((route) => route.path === template && route.method).map((route) => route.method!);

function corpus(): Case[] {
  const calls = routeCalls();
  return [...READ_ROUTES.flatMap((route) => casesOf(route.path, calls[route.path]!)), ...unknownPaths()];
}

/** Sends the cases to both services in turn and compares each pair of answers, and (`asWritten`) the status and encoding. */
async function sendBoth(runner: RunningApp, yoga: RunningApp, cases: Case[], label: string, asWritten: boolean) {
  for (const request of cases) {
    const [fromRunner, fromYoga] = [await send(runner.url, request), await send(yoga.url, request)];
    expectSameAnswer(fromRunner, fromYoga, `${request.name} (${label})`);
    if (asWritten) {
      expect(fromRunner.status, `${request.name} (${label})`).toBe(request.status);
      expect(fromRunner.headers['content-encoding'], `${request.name} (${label})`).toBe(request.encoding);
    }
  }
}

describe('the REST door on the operation runner', () => {
  it('has calls for every read route', () => {
    const calls = routeCalls();
    expect(READ_ROUTES.map((route) => route.path).filter((path) => !calls[path])).toEqual([]);
    expect(READ_ROUTES).toHaveLength(14);
  });

  it('answers every request of the corpus exactly as Yoga does, the first time and again, and counts the same', async () => {
    const { runner, yoga } = await pair();
    // 24 wrong keys in both rounds: within an address's 30 failed authentications a minute, each one a 401.
    await sendBoth(runner, yoga, corpus(), 'first', true);
    await sendBoth(runner, yoga, corpus(), 'again', false);
    await expectSameCounts(runner, yoga);
    // The runner served the routes; Yoga never ran it.
    expect(await runnerRuns(runner)).toBeGreaterThan(0);
    expect(await runnerRuns(yoga)).toBe(0);
  });

  it('compresses a large page as Yoga does, masks secrets without the scope and shows them with it', async () => {
    const { runner, yoga } = await pair();
    for (const key of [keys.acme, keys.acmeSecrets]) {
      for (const encoding of [undefined, 'gzip', 'br']) {
        const request: Case = { name: `page of 100, ${encoding}`, path: '/v2/deployments?limit=100', headers: { 'x-api-key': key, ...(encoding && { 'accept-encoding': encoding }) }, status: 200 };
        const [fromRunner, fromYoga] = [await send(runner.url, request), await send(yoga.url, request)];
        expectSameAnswer(fromRunner, fromYoga, request.name);
        expect(fromRunner.headers['content-encoding']).toBe(encoding);
        if (encoding === undefined) {
          expect(fromRunner.body.byteLength).toBeGreaterThan(100_000);
          expect(fromRunner.body.toString().includes('sk_live_fixture_Zq8')).toBe(key === keys.acmeSecrets);
        }
      }
    }
    await expectSameCounts(runner, yoga);
  });

  it.each([
    ['one origin', ['https://app.example.com']],
    ['two origins', ['https://app.example.com', 'https://admin.example.com']],
  ])('answers as Yoga does where CORS is configured (%s): allowed origins, other origins and no origin', async (_, corsOrigins) => {
    const { runner, yoga } = await pair(1_000_000, { corsOrigins });
    const calls = routeCalls();
    const acme = { 'x-api-key': keys.acme };
    // Per route: a success, a HEAD, a refusal, a 404, a redirect, another method and a preflight.
    const cases = READ_ROUTES.flatMap(({ path: template }): Case[] => {
      const { ok, notFound } = calls[template]!;
      return [
        { name: `${template}: success`, path: ok, headers: acme, status: 200 },
        { name: `${template}: HEAD`, path: ok, method: 'HEAD', headers: acme, status: 200 },
        { name: `${template}: no key`, path: ok, status: 401 },
        { name: `${template}: a trailing slash`, path: `${ok.split('?')[0]}/`, headers: acme, status: 307 },
        ...notFound.slice(0, 1).map((path) => ({ name: `${template}: 404`, path, headers: acme, status: 404 })),
        { name: `${template}: PUT`, path: ok, method: 'PUT', headers: acme, status: 405 },
        { name: `${template}: a preflight`, path: ok, method: 'OPTIONS', headers: { 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' }, status: 204 },
      ];
    });
    for (const origin of ['https://app.example.com', 'https://admin.example.com', 'https://evil.example.net', 'null', undefined]) {
      const withOrigin = [...cases, ...unknownPaths()].map((request) => ({ ...request, headers: { ...request.headers, ...(origin && { origin }) } }));
      await sendBoth(runner, yoga, withOrigin, `Origin: ${origin}`, true);
    }
    await expectSameCounts(runner, yoga);
  });

  it('spends one request of the budget per request, HEAD too, and answers those over it as Yoga does', async () => {
    const { runner, yoga } = await pair(4);
    const acme = { 'x-api-key': keys.acme };
    const requests: Case[] = [
      { name: 'one deployment', path: deployment(ACME_DEPLOYMENT), headers: acme, status: 200 },
      { name: 'HEAD of a page', path: '/v2/deployments?limit=3', method: 'HEAD', headers: acme, status: 200 },
      { name: '422', path: '/v2/deployments?limit=0', headers: acme, status: 422 },
      { name: 'installations', path: '/v1/integrations/codehost/install', headers: acme, status: 200 },
      { name: 'over the budget', path: deployment(ACME_DEPLOYMENT), headers: acme, status: 429 },
      { name: 'over the budget, HEAD', path: revisions(HISTORY_APP), method: 'HEAD', headers: acme, status: 429 },
      { name: 'over the budget, compressed', path: '/v2/deployments?limit=100', headers: { ...acme, 'accept-encoding': 'gzip' }, status: 429 },
    ];
    const answers: Array<[RawResponse, RawResponse]> = [];
    for (const request of requests) answers.push([await send(runner.url, request), await send(yoga.url, request)]);
    expect(answers.map(([answer]) => [answer.status, answer.headers['ratelimit-remaining']]))
      .toEqual([[200, '3'], [200, '2'], [422, '1'], [200, '0'], [429, '0'], [429, '0'], [429, '0']]);
    answers.forEach(([fromRunner, fromYoga], i) => expectSameAnswer(fromRunner, fromYoga, requests[i]!.name));
    await expectSameCounts(runner, yoga);
  });

  it('serves a path that names a route once read as a URL (dot segments, encoded dots) on the runner', async () => {
    const { runner, yoga } = await pair();
    const targets = ['/x/../v2/deployments?limit=1', '/v2/x/%2e%2e/deployments?limit=1', '/./v2/deployments?limit=1', '/v2/deployments?limit=1&name_contains=app-1.'];
    for (const target of targets) {
      const before = await runnerRuns(runner);
      const [fromRunner, fromYoga] = [await rawTarget(runner.url, target), await rawTarget(yoga.url, target)];
      expect(fromRunner, target).toBe(fromYoga);
      expect(fromRunner.split('\r\n')[0], target).toBe('HTTP/1.1 200 OK');
      expect(await runnerRuns(runner) - before, target).toBe(1);
    }
  });
});

/**
 * The answer to a request line naming `target` as it is (a client library would resolve the dot segments
 * first): its status line, its header lines in name order (an order HTTP gives no meaning to), without what
 * differs between two answers (the date, the request id, the rate-limit reset) and the validators only the
 * runner gives (test/conditional-requests.test.ts), and its body.
 */
function rawTarget(base: string, target: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = net.connect(Number(port), hostname, () => socket.write(
      `GET ${target} HTTP/1.1\r\nHost: gateway.example.com\r\nX-Api-Key: ${keys.acme}\r\nConnection: close\r\n\r\n`,
    ));
    socket.on('data', (chunk: Buffer) => { answer += chunk.toString('utf8'); });
    socket.once('close', () => {
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      const [status = '', ...fields] = head.split('\r\n');
      const kept = fields.filter((field) => !/^(date|x-request-id|ratelimit-reset|etag|cache-control|vary):/i.test(field)).toSorted();
      resolve([status, ...kept, '', body].join('\r\n'));
    });
    socket.once('error', reject);
  });
}

