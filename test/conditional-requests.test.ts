// Conditional requests (issue 44; docs/decisions.md#conditional-requests), as a polling client and an attacker
// see them: every read answer of both doors (REST GETs, GraphQL queries sent by GET) carries a strong ETag with
// `Cache-Control: private, no-cache` and the Vary of every header it depends on, and a request naming the tag
// in If-None-Match gets 304 without a body, until any committed change of the tenant's data, whoever makes it.
// A tag never crosses tenants, keys of other permissions or content codings, and a 304 never goes to a caller
// the 200 would be refused to.
import { createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentIdOf } from '../src/graphql/trusted-documents.ts';
import { RateLimiter } from '../src/limits/rate-limiter.ts';
import { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import { rotateSecrets } from '../src/modules/secrets/key-rotation.ts';
import { keyFingerprint } from '../src/modules/secrets/key-fingerprint.ts';
import { hashApiKey } from '../src/modules/tenancy/api-key-secret.ts';
import { REST_ROUTES } from '../src/rest/routes.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { claimThe, graphqlPlane, queuedDeployments, restPlane } from './support/data-plane.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME, ACME_DEPLOYMENT, ACME_INTEGRATION, GLOBEX, GLOBEX_INTEGRATION, issueKey } from './support/fixtures.ts';
import { rawRequest } from './support/raw-http.ts';
import { importExtra, newerAcmeDeployments } from './support/graphql-expect.ts';
import { restCaller, type Answer } from './support/write-calls.ts';

const VARY = 'Authorization, X-Api-Key, X-Tenant-Id, Accept, Accept-Encoding';
const TAG = /^"(\d+(-masked)?-)?[0-9a-f]{24}"$/;
const PAGE = '/v2/deployments?limit=100';
const TENANT_QUERY = '{ tenant { name } deployments(limit: 3) { resources { name status } } }';

let fixture: FixtureApp<'reader' | 'secrets' | 'writer' | 'plane' | 'both' | 'globex'>;
let revisionOfAcme: string;
let listenerOfAcme: string;
beforeAll(async () => {
  fixture = await startFixtureApp([], {
    reader: { tenants: [ACME] }, secrets: { tenants: [ACME], mayReadSecrets: true }, writer: { tenants: [ACME], mayWrite: true },
    plane: { tenants: [ACME], mayReconcile: true }, both: { tenants: [ACME, GLOBEX] }, globex: { tenants: [GLOBEX] },
  });
  revisionOfAcme = (await fixture.db.query<{ id: string }>('select id from revision where deployment_id = $1 limit 1', [ACME_DEPLOYMENT]))[0]!.id;
  const listener = await call('POST', '/v2/listeners', { key: fixture.keys.writer, body: { compute_type: 'k8s', compute_id: 'tagged', compute_config: { k8s_namespaces: ['apps'] } } });
  listenerOfAcme = listener.json.id;
});
afterAll(() => fixture?.close());

const call = restCaller(() => fixture.app.url, () => fixture.keys.reader);
const get = (path: string, headers: Record<string, string> = {}, key = fixture.keys.reader) => call('GET', path, { key, headers });
const graphqlGet = (query: string, headers: Record<string, string> = {}, key = fixture.keys.reader, app = fixture.app) =>
  fetch(`${app.url}/graphql?${new URLSearchParams({ query })}`, { headers: { 'x-api-key': key, accept: 'application/graphql-response+json', ...headers } });

/** The ETag of a 200 that carries every validator. */
function validated(answer: { status: number; headers: Headers }): string {
  expect(answer.status).toBe(200);
  expect({ cache: answer.headers.get('cache-control'), vary: answer.headers.get('vary') }).toEqual({ cache: 'private, no-cache', vary: VARY });
  const etag = answer.headers.get('etag')!;
  expect(etag).toMatch(TAG);
  return etag;
}

/** 304, no body, the validators again. */
async function expectNotModified(answer: Answer | Response, etag: string) {
  const body = 'text' in answer && typeof answer.text === 'string' ? answer.text : await (answer as Response).text();
  expect({ status: answer.status, body, etag: answer.headers.get('etag'), cache: answer.headers.get('cache-control'), vary: answer.headers.get('vary') })
    .toEqual({ status: 304, body: '', etag, cache: 'private, no-cache', vary: VARY });
}

/** The read routes, each with a path and a key it answers 200 (a managed integration's repositories: GLOBEX's). */
const readPaths = (): Array<[path: string, key: string]> => {
  const concrete: Record<string, string> = {
    '/v2/deployments': '/v2/deployments?limit=5',
    '/v2/deployments/{deployment_id}': `/v2/deployments/${ACME_DEPLOYMENT}`,
    '/v2/deployments/{deployment_id}/revisions': `/v2/deployments/${ACME_DEPLOYMENT}/revisions`,
    '/v2/deployments/{deployment_id}/revisions/{revision_id}': `/v2/deployments/${ACME_DEPLOYMENT}/revisions/${revisionOfAcme}`,
    '/v2/listeners/{listener_id}': `/v2/listeners/${listenerOfAcme}`,
  };
  return REST_ROUTES.filter((route) => (route.method ?? 'GET') === 'GET').map((route) => {
    const managed = /managed|forge/.test(route.path) && route.path.includes('{integration_id}');
    const path = concrete[route.path] ?? route.path.replace('{codehost}', 'github').replace('{integration_id}', managed ? GLOBEX_INTEGRATION : ACME_INTEGRATION);
    return [path, managed ? fixture.keys.globex : fixture.keys.reader];
  });
};

describe('every read answer carries a tag, and a request naming it gets 304', () => {
  it('on every REST GET route, and HEAD', async () => {
    const paths = readPaths();
    expect(paths.length).toBeGreaterThanOrEqual(10);
    for (const [path, key] of paths) {
      const first = await get(path, {}, key);
      expect(first.status, `${path}: ${first.text}`).toBe(200);
      const etag = validated(first);
      await expectNotModified(await get(path, { 'if-none-match': etag }, key), etag);
      await expectNotModified(await call('HEAD', path, { key, headers: { 'if-none-match': etag } }), etag);
      // Weak comparison, and a list: either names it.
      expect((await get(path, { 'if-none-match': `"nope", W/${etag}` }, key)).status).toBe(304);
      // `*` names any current answer.
      expect((await get(path, { 'if-none-match': '*' }, key)).status, path).toBe(304);
      expect((await get(path, { 'if-none-match': '"0123456789abcdef01234567"' }, key)).status).toBe(200);
    }
  });

  it('on a GraphQL query sent by GET; a POST, a mutation by GET and an error get none', async () => {
    const first = await graphqlGet(TENANT_QUERY);
    const etag = validated(first);
    expect((await first.json()).data.tenant.name).toBeTruthy();
    await expectNotModified(await graphqlGet(TENANT_QUERY, { 'if-none-match': etag }), etag);
    // Another media type, another answer: another tag.
    const asJson = await graphqlGet(TENANT_QUERY, { accept: 'application/json', 'if-none-match': etag });
    expect(validated(asJson)).not.toBe(etag);

    const post = await fixture.app.graphql(TENANT_QUERY, { 'x-api-key': fixture.keys.reader, 'if-none-match': etag });
    expect({ status: post.status, etag: post.headers.get('etag') }).toEqual({ status: 200, etag: null });
    const mutation = await graphqlGet('mutation { deleteDeployment(input: { id: "x" }) { __typename } }', {}, fixture.keys.writer);
    expect({ status: mutation.status, etag: mutation.headers.get('etag') }).toEqual({ status: 405, etag: null });
    const missing = await graphqlGet('{ deployment(id: "not-an-id") { name } }');
    expect(missing.status).toBe(200);
    expect((await missing.json()).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(missing.headers.get('etag')).toBeNull();
  });

  it('per content coding: a gzip answer\'s tag does not name the uncompressed one', async () => {
    // node:http, which sends no Accept-Encoding of its own (fetch does).
    const raw = async (headers: Record<string, string>) => {
      const answer = await rawRequest(`${fixture.app.url}${PAGE}`, { headers: { 'x-api-key': fixture.keys.reader, ...headers } });
      return { status: answer.status, etag: answer.headers.etag, encoding: answer.headers['content-encoding'] };
    };
    const gzip = await raw({ 'accept-encoding': 'gzip' });
    const plain = await raw({});
    expect({ gzip: gzip.encoding, plain: plain.encoding }).toEqual({ gzip: 'gzip', plain: undefined });
    expect(gzip.etag).not.toBe(plain.etag);
    expect((await raw({ 'if-none-match': gzip.etag! })).status).toBe(200);
    expect((await raw({ 'accept-encoding': 'gzip', 'if-none-match': gzip.etag! })).status).toBe(304);
    expect((await raw({ 'accept-encoding': 'br', 'if-none-match': gzip.etag! })).status).toBe(200);
  });

  it('keeps a deployment\'s version in its tag: If-Match takes the GET\'s tag, and 304 names the tag sent', async () => {
    const etag = validated(await get(`/v2/deployments/${ACME_DEPLOYMENT}`));
    expect(etag).toMatch(/^"\d+-masked-[0-9a-f]{24}"$/);
    await expectNotModified(await get(`/v2/deployments/${ACME_DEPLOYMENT}`, { 'if-none-match': etag }), etag);
  });
});

describe('a tag never outlives a change of what the answer shows', () => {
  /** The tags of a page, a deployment, its revisions and a GraphQL query, before `change`; none names the answer after it. */
  async function expectChangedBy(change: () => Promise<unknown>, key = fixture.keys.reader) {
    const paths = [PAGE, `/v2/deployments/${ACME_DEPLOYMENT}/revisions`, '/v1/integrations/codehost/install'];
    const before = await Promise.all(paths.map(async (path) => validated(await get(path, {}, key))));
    const graphqlBefore = validated(await graphqlGet(TENANT_QUERY, {}, key));
    await change();
    for (const [i, path] of paths.entries()) expect((await get(path, { 'if-none-match': before[i]! }, key)).status, path).toBe(200);
    expect((await graphqlGet(TENANT_QUERY, { 'if-none-match': graphqlBefore }, key)).status).toBe(200);
  }

  it('a REST write, a GraphQL write, an import', async () => {
    await expectChangedBy(async () => {
      const created = await call('POST', '/v2/deployments', { key: fixture.keys.writer, body: { name: `conditional-${randomUUID()}`, source: 'internal_docker', source_config: {}, source_revision_config: {}, secrets: [] } });
      expect(created.status).toBe(201);
    });
    const page = await get(PAGE);
    await expectChangedBy(async () => {
      const { body } = await fixture.app.graphql(`mutation { updateDeployment(input: { id: "${ACME_DEPLOYMENT}", sourceConfig: { installCommand: "make ${randomUUID()}" } }) { __typename } }`, { 'x-api-key': fixture.keys.writer });
      expect(body.data.updateDeployment.__typename).toBe('UpdateDeploymentPayload');
    });
    expect((await get(PAGE)).text).not.toBe(page.text);
    await expectChangedBy(() => importExtra(fixture.db.orm.em, fixture.cipher, { tenants: [], integrations: [], tags: [], deployments: newerAcmeDeployments(1, () => ({ name: `imported-${randomUUID()}` })) }));
  });

  it('a data plane\'s claim and status report; its log lines only where they are shown; not a lease\'s renewal', async () => {
    const [queued] = await queuedDeployments(call, 1, { key: fixture.keys.writer, prefix: 'conditional' });
    const plane = graphqlPlane(() => fixture.app, fixture.keys.plane);
    let leaseId = '';
    await expectChangedBy(async () => {
      leaseId = (await claimThe(plane, queued!.revisionId));
    });
    await expectChangedBy(async () => expect(await plane.report(queued!.revisionId, leaseId, 'BUILDING')).toEqual({ applied: true }));
    // Log lines move only the answers that show them: the `logs` and `logPage` of a revision.
    const logs = `{ deployment(id: "${queued!.id}") { revisions { logs(first: 5) { edges { node { message } } } } } }`;
    const logPage = `{ deployment(id: "${queued!.id}") { revision(id: "${queued!.revisionId}") { status page: logPage { lines { message } } } } }`;
    const [logsTag, logPageTag, otherTag] = [validated(await graphqlGet(logs)), validated(await graphqlGet(logPage)), validated(await graphqlGet(TENANT_QUERY))];
    const revisionPath = `/v2/deployments/${queued!.id}/revisions/${queued!.revisionId}`;
    const restTag = validated(await get(revisionPath));
    const appended = await call('POST', `/v2/data-plane/revisions/${queued!.revisionId}/logs`, {
      key: fixture.keys.plane, body: { lease_id: leaseId, phase: 'build', first_line: 0, lines: [{ message: 'Step 1/4 : FROM node:24' }] },
    });
    expect(appended.status, appended.text).toBe(200);
    for (const [query, tag] of [[logs, logsTag], [logPage, logPageTag]] as const) {
      const afterAppend = await graphqlGet(query, { 'if-none-match': tag });
      expect(afterAppend.status).toBe(200);
      expect(await afterAppend.text()).toContain('Step 1/4');
    }
    expect((await graphqlGet(TENANT_QUERY, { 'if-none-match': otherTag })).status).toBe(304);
    expect((await get(revisionPath, { 'if-none-match': restTag })).status).toBe(304);
    // A heartbeat (the status it already has) renews the lease only: the answers are the same bytes.
    const etag = validated(await get(`/v2/deployments/${queued!.id}/revisions`));
    expect(await restPlane(call, fixture.keys.plane).report(queued!.revisionId, leaseId, 'BUILDING')).toEqual({ applied: false });
    expect((await get(`/v2/deployments/${queued!.id}/revisions`, { 'if-none-match': etag })).status).toBe(304);
  });

  it('a change made in SQL: a deployment\'s tags, a revision, the tenant\'s name', async () => {
    await expectChangedBy(() => fixture.db.query('delete from deployment_tag_value where ctid = (select ctid from deployment_tag_value where deployment_id = $1 limit 1)', [ACME_DEPLOYMENT]));
    await expectChangedBy(() => fixture.db.query("update revision set status_message = 'edited by hand' where id = $1", [revisionOfAcme]));
    await expectChangedBy(() => fixture.db.query("update tenant set name = name || ' (renamed)' where id = $1", [ACME]));
  });

  it('a rotation of the secrets key, for a key that reads secrets and one that does not', async () => {
    // Rotated to a new key and back, each time with the key it leaves as the previous one: the values stay readable.
    const newKey = randomBytes(32);
    const newFingerprint = keyFingerprint(newKey);
    const toNew = new SecretCipher(new Map([[newFingerprint, createSecretKey(newKey)], ...fixture.cipher.keyRing]));
    const back = new SecretCipher(new Map([...fixture.cipher.keyRing, [newFingerprint, createSecretKey(newKey)]]));
    for (const [key, cipher] of [[fixture.keys.secrets, toNew], [fixture.keys.reader, back]] as const) {
      await expectChangedBy(async () => expect((await rotateSecrets(fixture.db.orm.em.fork(), cipher, { batchSize: 50 })).rotated).toBeGreaterThan(0), key);
    }
  });

  it('nothing else: answers of another tenant keep their tags through ACME\'s changes', async () => {
    const etag = validated(await get(PAGE, {}, fixture.keys.globex));
    await fixture.db.query("update tenant set name = name || '!' where id = $1", [ACME]);
    expect((await get(PAGE, { 'if-none-match': etag }, fixture.keys.globex)).status).toBe(304);
  });
});

describe('a tag is the caller\'s', () => {
  it('two tenants, a masked and a revealing key, and a key of two tenants never share one', async () => {
    const tags = new Set([
      validated(await get(PAGE, {}, fixture.keys.reader)), validated(await get(PAGE, {}, fixture.keys.secrets)),
      validated(await get(PAGE, {}, fixture.keys.globex)), validated(await get(PAGE, { 'x-tenant-id': ACME }, fixture.keys.both)),
      validated(await get(PAGE, { 'x-tenant-id': GLOBEX }, fixture.keys.both)),
    ]);
    expect(tags.size).toBe(5);
    const acme = validated(await get(PAGE, {}, fixture.keys.reader));
    // GLOBEX's key sending ACME's tag gets its own page, not a 304.
    const globex = await get(PAGE, { 'if-none-match': acme }, fixture.keys.globex);
    expect(globex.status).toBe(200);
    expect(globex.json.resources.length).toBeGreaterThan(0);
    expect(globex.json.resources.every((d: { tenant_id: string }) => d.tenant_id === GLOBEX)).toBe(true);
    const masked = validated(await get(PAGE, {}, fixture.keys.reader));
    const revealed = await get(PAGE, { 'if-none-match': masked }, fixture.keys.secrets);
    expect(revealed.status).toBe(200);
  });

  it('a 304 only for a caller the 200 would be served to: a wrong key, a tenant not granted, no tenant, a spent budget', async () => {
    const etag = validated(await get(PAGE));
    expect((await get(PAGE, { 'if-none-match': etag }, 'dmk_not-a-key-of-this-service')).status).toBe(401);
    expect((await call('GET', PAGE, { key: '', headers: { 'if-none-match': etag } })).status).toBe(401);
    expect((await get(PAGE, { 'if-none-match': etag, 'x-tenant-id': GLOBEX })).status).toBe(403);
    const both = validated(await get(PAGE, { 'x-tenant-id': ACME }, fixture.keys.both));
    expect((await get(PAGE, { 'if-none-match': both }, fixture.keys.both)).status).toBe(403);

    const limiter = new RateLimiter({ perMinute: 2, keyPrefix: `conditional-${randomUUID()}` });
    const limited = await startApp(fixture.db.orm, fixture.cipher, undefined, { rateLimiter: limiter });
    try {
      const limitedCall = restCaller(() => limited.url, () => fixture.keys.reader);
      const tag = validated(await limitedCall('GET', PAGE));
      expect((await limitedCall('GET', PAGE, { headers: { 'if-none-match': tag } })).status).toBe(304);
      expect((await limitedCall('GET', PAGE, { headers: { 'if-none-match': tag } })).status).toBe(429);
    } finally {
      await limited.close();
      await limiter.close();
    }
  });

  it('a key that gains the secrets permission no longer matches its masked tag; another gateway honours a tag until then', async () => {
    const key = await issueKey(fixture.db.orm.em, [ACME]);
    const other = await startApp(fixture.db.orm, fixture.cipher);
    try {
      const etag = validated(await get(PAGE, {}, key));
      // A gateway of the same build on the same database: the same tag.
      const elsewhere = restCaller(() => other.url, () => key);
      await expectNotModified(await elsewhere('GET', PAGE, { headers: { 'if-none-match': etag } }), etag);
      expect((await fixture.db.query('update api_key set may_read_secrets = true where key_hash = $1 returning id', [hashApiKey(key)])).length).toBe(1);
      const revealing = await elsewhere('GET', PAGE, { headers: { 'if-none-match': etag } });
      expect(revealing.status).toBe(200);
      expect(revealing.text).not.toContain('"********"');
    } finally {
      await other.close();
    }
  });
});

describe('a tagged answer from a page on another origin', () => {
  it('keeps every name of its Vary beside CORS\'s Origin, exposes its ETag, and allows If-None-Match', async () => {
    const app = await startApp(fixture.db.orm, fixture.cipher, undefined, { options: { corsOrigins: ['https://app.example.com', 'https://admin.example.com'] } });
    try {
      const answer = await fetch(`${app.url}${PAGE}`, { headers: { 'x-api-key': fixture.keys.reader, origin: 'https://app.example.com' } });
      expect({ status: answer.status, vary: answer.headers.get('vary'), origin: answer.headers.get('access-control-allow-origin') })
        .toEqual({ status: 200, vary: `${VARY}, Origin`, origin: 'https://app.example.com' });
      expect(answer.headers.get('access-control-expose-headers')).toContain('etag');
      // An app that revalidates itself may send If-None-Match across origins.
      const preflight = await fetch(`${app.url}${PAGE}`, {
        method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key, if-none-match' },
      });
      expect(preflight.headers.get('access-control-allow-headers')).toContain('if-none-match');
    } finally {
      await app.close();
    }
  });
});

describe('trusted documents by GET', () => {
  it('a document id in the URL, or Apollo\'s persisted-query hash, gets a tag and 304', async () => {
    const manifest = new Map([[documentIdOf(TENANT_QUERY), TENANT_QUERY]]);
    const app = await startApp(fixture.db.orm, fixture.cipher, undefined, { options: { trustedDocuments: { mode: 'require', manifest } } });
    try {
      const id = documentIdOf(TENANT_QUERY);
      const byId = (headers: Record<string, string> = {}) => fetch(`${app.url}/graphql?documentId=${encodeURIComponent(id)}`, { headers: { 'x-api-key': fixture.keys.reader, ...headers } });
      const etag = validated(await byId());
      await expectNotModified(await byId({ 'if-none-match': etag }), etag);
      const extensions = JSON.stringify({ persistedQuery: { version: 1, sha256Hash: id.replace(/^sha256:/, '') } });
      const byHash = await fetch(`${app.url}/graphql?extensions=${encodeURIComponent(extensions)}`, { headers: { 'x-api-key': fixture.keys.reader } });
      expect((await byHash.clone().json()).data.tenant.name).toBeTruthy();
      validated(byHash);
    } finally {
      await app.close();
    }
  });
});
