// Image pushes without a registry process (part of `npm test`; the real registry and skopeo are in
// test/scale/registry.test.ts): the REGISTRY_* configuration, the scope and reference rules, push-token through
// both doors, and the token server's answers, whose JWTs are checked here with the public key as a registry
// checks them.
import { createHash, createPublicKey, generateKeyPairSync, randomUUID, verify } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { AUTH_FAILURES_PER_MINUTE, RateLimiter } from '../src/limits/rate-limiter.ts';
import { ContainerRegistry } from '../src/modules/registry/container-registry.ts';
import { hashOf } from '../src/modules/registry/push-tokens.ts';
import { libtrustKeyId } from '../src/modules/registry/registry-token.ts';
import { grantedAccess, imageInRegistry, parseScopes } from '../src/modules/registry/repositories.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME, ACME_DEPLOYMENT, GLOBEX } from './support/fixtures.ts';
import { freePort } from './support/loopback.ts';
import { restCaller } from './support/write-calls.ts';

const pem = (type: 'ec' | 'rsa', options: object) => generateKeyPairSync(type as 'ec', options as { namedCurve: string }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const EC_KEY = pem('ec', { namedCurve: 'P-256' });

describe('configuration', () => {
  it('is off unless REGISTRY_URL is set, and then needs a P-256 or RSA key, as PEM or in a file', () => {
    expect(loadConfig({}).registry).toBeUndefined();
    expect(() => loadConfig({ REGISTRY_SIGNING_KEY: EC_KEY })).toThrow('REGISTRY_SIGNING_KEY is used with REGISTRY_URL, which is not set');
    expect(() => loadConfig({ REGISTRY_URL: 'https://registry.example.com' })).toThrow('REGISTRY_SIGNING_KEY is required with REGISTRY_URL');
    expect(loadConfig({ REGISTRY_URL: 'https://registry.example.com/', REGISTRY_SIGNING_KEY: EC_KEY }).registry).toEqual({
      url: 'https://registry.example.com', repositoryPrefix: 'deployments', service: 'registry.example.com', issuer: 'deployments-gateway', signingKeyPem: EC_KEY.trim(),
    });
    // A PEM on one line of an env file, and a key in a file.
    expect(loadConfig({ REGISTRY_URL: 'http://10.0.0.5:5000', REGISTRY_SIGNING_KEY: EC_KEY.replaceAll('\n', '\\n') }).registry?.signingKeyPem).toBe(EC_KEY);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'registry-key-')), 'key.pem');
    fs.writeFileSync(file, pem('rsa', { modulusLength: 2048 }));
    expect(loadConfig({
      REGISTRY_URL: 'http://10.0.0.5:5000', REGISTRY_SIGNING_KEY: file, REGISTRY_SERVICE: 'registry', REGISTRY_TOKEN_ISSUER: 'gw', REGISTRY_REPOSITORY_PREFIX: 'apps/prod',
    }).registry).toMatchObject({ service: 'registry', issuer: 'gw', repositoryPrefix: 'apps/prod' });
    for (const [env, message] of [
      [{ REGISTRY_SIGNING_KEY: pem('ec', { namedCurve: 'P-384' }) }, 'REGISTRY_SIGNING_KEY must be an RSA or EC P-256 private key'],
      [{ REGISTRY_SIGNING_KEY: '/nowhere/key.pem' }, 'REGISTRY_SIGNING_KEY is neither a PEM key nor a file that exists'],
      [{ REGISTRY_SIGNING_KEY: EC_KEY, REGISTRY_REPOSITORY_PREFIX: 'Apps' }, 'REGISTRY_REPOSITORY_PREFIX must be lowercase repository path components'],
      [{ REGISTRY_SIGNING_KEY: EC_KEY, REGISTRY_URL: 'registry.example.com' }, 'REGISTRY_URL must be an http:// or https:// origin'],
    ] as const) {
      expect(() => loadConfig({ REGISTRY_URL: 'https://registry.example.com', ...env })).toThrow(ConfigError);
      expect(() => loadConfig({ REGISTRY_URL: 'https://registry.example.com', ...env })).toThrow(message);
    }
  });
});

describe('scopes and references', () => {
  const mine = 'deployments/t1/d1';
  it('grants push and pull at or below the deployment\'s repository only', () => {
    const scopes = parseScopes([`repository:${mine}/app:push,pull repository:deployments/t1/d2/app:push`, `repository:${mine}:pull,delete,*`, 'registry:catalog:*', `repository:${mine}-x/app:pull`]);
    expect(grantedAccess(scopes, mine, ['push', 'pull'])).toEqual([
      { type: 'repository', name: `${mine}/app`, actions: ['pull', 'push'] },
      { type: 'repository', name: mine, actions: ['pull'] },
    ]);
    expect(grantedAccess(scopes, mine, ['pull'])).toEqual([
      { type: 'repository', name: `${mine}/app`, actions: ['pull'] },
      { type: 'repository', name: mine, actions: ['pull'] },
    ]);
  });

  it('tells an image of the registry (by digest or tag) from others, and a malformed one', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(imageInRegistry(`registry.example.com:5000/${mine}/app@${digest}`, 'registry.example.com:5000')).toEqual({ repository: `${mine}/app`, reference: digest });
    expect(imageInRegistry(`https://Registry.Example.com:5000/${mine}/app:v1@${digest}`, 'registry.example.com:5000')).toEqual({ repository: `${mine}/app`, reference: digest });
    expect(imageInRegistry(`registry.example.com:5000/${mine}/app:v1`, 'registry.example.com:5000')).toEqual({ repository: `${mine}/app`, reference: 'v1' });
    expect(imageInRegistry(`registry.example.com:5000/${mine}/app`, 'registry.example.com:5000')).toEqual({ repository: `${mine}/app`, reference: 'latest' });
    expect(imageInRegistry('nginx:1.27', 'registry.example.com:5000')).toBeUndefined();
    expect(imageInRegistry(`registry.example.com/${mine}/app@${digest}`, 'registry.example.com:5000')).toBeUndefined();
    expect(imageInRegistry(`registry.example.com:5000/${mine}/app@sha256:short`, 'registry.example.com:5000')).toBeNull();
    expect(imageInRegistry(`registry.example.com:5000/${mine}/App:v1`, 'registry.example.com:5000')).toBeNull();
  });

  it('names the signing key as libtrust does: 48 base32 characters of its SHA-256, in twelve groups', () => {
    const id = libtrustKeyId(createPublicKey(EC_KEY));
    expect(id).toMatch(/^[A-Z2-7]{4}(:[A-Z2-7]{4}){11}$/);
    const spki = createPublicKey(EC_KEY).export({ type: 'spki', format: 'der' });
    const digest = createHash('sha256').update(spki).digest().subarray(0, 30);
    // The same 240 bits, read back from the ID (base32 → bytes).
    const bits = id.replaceAll(':', '').split('').map((c) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(c).toString(2).padStart(5, '0')).join('');
    expect(Buffer.from(bits.match(/.{8}/g)!.map((byte) => parseInt(byte, 2)))).toEqual(digest);
  });
});

describe('push-token and the token server, on a real database', () => {
  let fixture: FixtureApp<'cli' | 'reader' | 'globex' | 'plane'>;
  let withoutRegistry: RunningApp;
  let registry: ContainerRegistry;
  const SERVICE = 'registry.test';

  beforeAll(async () => {
    // A port nothing listens on: the registry "does not answer" (only the PATCH's manifest check asks it anything).
    registry = new ContainerRegistry({ url: `http://127.0.0.1:${await freePort()}`, repositoryPrefix: 'deployments', service: SERVICE, issuer: 'gw-test', signingKeyPem: EC_KEY });
    fixture = await startFixtureApp([], {
      cli: { tenants: [ACME], mayWrite: true }, reader: { tenants: [ACME] }, globex: { tenants: [GLOBEX], mayWrite: true }, plane: { tenants: [ACME], mayReconcile: true },
    }, { registry });
    withoutRegistry = await startApp(fixture.db.orm, fixture.cipher);
  });
  afterAll(async () => {
    await withoutRegistry?.close();
    await fixture?.close();
  });

  const call = restCaller(() => fixture.app.url, () => fixture.keys.cli);
  const createDocker = async (key = fixture.keys.cli) => (await call('POST', '/v2/deployments', {
    key, body: { name: `docker-${Math.random().toString(36).slice(2, 10)}`, source: 'internal_docker', source_config: {}, source_revision_config: {}, secrets: [] },
  })).json.id as string;

  async function tokenServer(password: string, scopes: string[], init: RequestInit = {}, service = SERVICE) {
    const query = new URLSearchParams([['service', service], ...scopes.map((scope) => ['scope', scope])]);
    const response = await fetch(`${fixture.app.url}/registry/token?${query}`, {
      ...init, headers: { authorization: `Basic ${Buffer.from(`oauth2accesstoken:${password}`).toString('base64')}` },
    });
    return { status: response.status, json: await response.json() };
  }

  /** The JWT's header and claims, once its signature verifies with the service's public key. */
  function verified(jwt: string) {
    const [header, claims, signature] = jwt.split('.');
    expect(verify('sha256', Buffer.from(`${header}.${claims}`), { key: createPublicKey(EC_KEY), dsaEncoding: 'ieee-p1363' }, Buffer.from(signature!, 'base64url'))).toBe(true);
    return { header: JSON.parse(Buffer.from(header!, 'base64url').toString()), claims: JSON.parse(Buffer.from(claims!, 'base64url').toString()) };
  }

  it('issues through both doors; the token server grants the deployment\'s repository only, in a JWT the key verifies', async () => {
    const id = await createDocker();
    const rest = await call('POST', `/v2/deployments/${id}/push-token`);
    expect(rest.status, rest.text).toBe(200);
    expect(rest.json).toEqual({ token: expect.stringMatching(/^dpt_[A-Za-z0-9_-]{43}$/), registry_url: `${registry.host}/deployments/${ACME}/${id}`, expires_at: expect.any(String) });
    expect(Date.parse(rest.json.expires_at) - Date.now()).toBeGreaterThan(59 * 60_000);
    const graphql = await fixture.app.graphql(`mutation($id: ID!) { createPushToken(input: { deploymentId: $id, clientMutationId: "m1" }) {
      __typename ... on CreatePushTokenPayload { token registryUrl repository expiresAt clientMutationId } } }`, { 'x-api-key': fixture.keys.cli }, { id });
    const payload = graphql.body.data.createPushToken;
    expect(payload).toMatchObject({ __typename: 'CreatePushTokenPayload', registryUrl: rest.json.registry_url, repository: `deployments/${ACME}/${id}`, clientMutationId: 'm1' });
    expect(payload.token).not.toBe(rest.json.token);

    const mine = `deployments/${ACME}/${id}/app`;
    const granted = await tokenServer(payload.token, [`repository:${mine}:push,pull`, `repository:deployments/${ACME}/${ACME_DEPLOYMENT}/app:pull`]);
    expect(granted.status).toBe(200);
    expect(granted.json.token).toBe(granted.json.access_token);
    expect(granted.json.expires_in).toBe(300);
    const { header, claims } = verified(granted.json.token);
    expect(header).toEqual({ typ: 'JWT', alg: 'ES256', kid: registry.signer.keyId });
    expect(claims).toMatchObject({ iss: 'gw-test', aud: SERVICE, sub: `deployment:${id}`, access: [{ type: 'repository', name: mine, actions: ['pull', 'push'] }] });
    expect(claims.exp - claims.iat).toBe(300);
    // A login asks for nothing and gets a token granting nothing.
    expect(verified((await tokenServer(payload.token, [])).json.token).claims.access).toEqual([]);
  });

  it('refuses what is not a good push token, another service, another method; and stops at the deployment\'s deletion', async () => {
    const id = await createDocker();
    const { json: { token } } = await call('POST', `/v2/deployments/${id}/push-token`);
    expect((await tokenServer('dpt_made-up', [])).status).toBe(401);
    expect((await tokenServer(token, [], {}, 'another-registry')).status).toBe(400);
    expect((await tokenServer(token, [], { method: 'POST' })).status).toBe(405);
    const wrongUser = await fetch(`${fixture.app.url}/registry/token`, { headers: { authorization: `Basic ${Buffer.from(`admin:${token}`).toString('base64')}` } });
    expect(wrongUser.status).toBe(401);
    // The database holds the token's hash, never the token.
    const [row] = await fixture.db.orm.em.fork().getConnection().execute('select * from registry_push_token where deployment_id = ?', [id]);
    expect(row!.token_hash).toBe(hashOf(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect((await tokenServer(token, [])).status).toBe(200);
    expect((await call('DELETE', `/v2/deployments/${id}`)).status).toBe(204);
    expect((await tokenServer(token, [])).status).toBe(401);
  });

  it('counts refused push tokens against the address\'s budget of failed authentications (429 past it)', async () => {
    const limited = await startApp(fixture.db.orm, fixture.cipher, undefined, { registry, rateLimiter: new RateLimiter({ perMinute: 1000, keyPrefix: `registry-${randomUUID()}` }) });
    try {
      const guess = () => fetch(`${limited.url}/registry/token?service=${SERVICE}`, { headers: { authorization: `Basic ${Buffer.from('oauth2accesstoken:dpt_guess').toString('base64')}` } });
      const statuses = [];
      for (let i = 0; i <= AUTH_FAILURES_PER_MINUTE; i++) statuses.push((await guess()).status);
      expect(statuses.slice(0, AUTH_FAILURES_PER_MINUTE).every((status) => status === 401)).toBe(true);
      const refused = await guess();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('answers the original\'s refusals: other sources 400, another tenant\'s 404, a key that may not write 403, no registry 501', async () => {
    const other = await call('POST', `/v2/deployments/${ACME_DEPLOYMENT}/push-token`);
    expect(other.status).toBe(400);
    expect(other.json.detail).toContain('only available for \'internal_docker\' source deployments');
    const acme = await createDocker();
    expect((await call('POST', `/v2/deployments/${acme}/push-token`, { key: fixture.keys.globex })).status).toBe(404);
    expect((await call('POST', `/v2/deployments/${acme}/push-token`, { key: fixture.keys.reader })).status).toBe(403);
    const off = await fetch(`${withoutRegistry.url}/v2/deployments/${acme}/push-token`, { method: 'POST', headers: { 'x-api-key': fixture.keys.cli } });
    expect(off.status).toBe(501);
    expect((await off.json()).detail).toMatch(/^This service runs no container registry, so it issues no push tokens/);
    const graphql = await withoutRegistry.graphql(`mutation($id: ID!) { createPushToken(input: { deploymentId: $id }) { __typename ... on MutationError { message } } }`, { 'x-api-key': fixture.keys.cli }, { id: acme });
    expect(graphql.body.data.createPushToken.__typename).toBe('RegistryNotConfiguredError');
    expect((await fetch(`${withoutRegistry.url}/registry/token`)).status).toBe(404);
  });

  it('refuses a PATCH naming an image of the registry when the registry does not answer (422, not 500)', async () => {
    const id = await createDocker();
    const { json: { registry_url: registryUrl } } = await call('POST', `/v2/deployments/${id}/push-token`);
    const patched = await call('PATCH', `/v2/deployments/${id}`, { body: { revision_source: 'internal_docker', source_revision_config: { image_uri: `${registryUrl}/app@sha256:${'b'.repeat(64)}` } } });
    expect(patched.status, patched.text).toBe(422);
    expect(patched.json.detail[0].msg).toMatch(/the registry did not answer whether .* exists \(.*\); try again$/);
    // An image elsewhere is not the registry's to judge.
    expect((await call('PATCH', `/v2/deployments/${id}`, { body: { revision_source: 'internal_docker', source_revision_config: { image_uri: 'ghcr.io/acme/app:1' } } })).status).toBe(200);
    // A create naming an image of the registry names another deployment's: refused before the registry is asked.
    const created = await call('POST', '/v2/deployments', {
      body: { name: 'borrows-an-image', source: 'external_docker', source_config: {}, source_revision_config: { image_uri: `${registryUrl}/app:latest` }, secrets: [] },
    });
    expect(created.status).toBe(422);
    expect(created.json.detail[0].msg).toContain('deployed only by the deployment they were pushed for');
  });
});
