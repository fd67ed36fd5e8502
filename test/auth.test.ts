// API keys and tenants over real HTTP (docs/decisions.md#authentication-and-tenants), including the attacks:
// revoked keys, forged keys, asking for a tenant the key was not granted, reaching other tenants by id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../src/modules/tenancy/api-key.service.ts';
import { ApiKeySchema } from '../src/modules/tenancy/api-key.entity.ts';
import { displayPrefix } from '../src/modules/tenancy/api-key-secret.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, GLOBEX, importFixture, issueKey, newCipher } from './support/fixtures.ts';

const TENANT_QUERY = '{ tenant { id name } }';
// GraphQL's messages: the original's words, then where a key goes.
const MISSING_KEY = 'Not authenticated: send an API key in the X-Api-Key header (or as Authorization: Bearer <key>).';
const INVALID_KEY = 'Invalid API key: the key sent in X-Api-Key (or Authorization: Bearer) is unknown or revoked.';

describe('authentication', () => {
  let db: TestDatabase;
  let app: RunningApp;
  let acmeKey: string;
  let bothKey: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    const cipher = newCipher();
    await importFixture(db.orm.em.fork(), cipher);
    acmeKey = await issueKey(db.orm.em, [ACME]);
    bothKey = await issueKey(db.orm.em, [ACME, GLOBEX]);
    app = await startApp(db.orm, cipher);
  });
  afterAll(async () => {
    await app?.close();
    await db.drop();
  });

  const tenantName = async (headers: Record<string, string>) => (await app.graphql(TENANT_QUERY, headers)).body.data?.tenant?.name;

  it('answers without a key with 401 UNAUTHENTICATED and WWW-Authenticate: APIKey', async () => {
    const { status, headers, body } = await app.graphql(TENANT_QUERY);
    expect(status).toBe(401);
    expect(headers.get('www-authenticate')).toBe('APIKey');
    expect(body.errors).toEqual([{ message: MISSING_KEY, extensions: { code: 'UNAUTHENTICATED' } }]);
    expect(body.data ?? null).toBeNull();
  });

  it('names the X-Api-Key header and, in demo mode, the demo key\'s file; REST keeps the original\'s words', async () => {
    const demo = await startApp(db.orm, newCipher(), undefined, { demoKeyFile: '/srv/gateway/.data/demo-api-key' });
    try {
      const hint = '; the demo key is in /srv/gateway/.data/demo-api-key.';
      expect((await demo.graphql(TENANT_QUERY)).body.errors[0].message).toBe(`${MISSING_KEY.slice(0, -1)}${hint}`);
      expect((await demo.graphql(TENANT_QUERY, { 'X-Api-Key': 'dmk_nope' })).body.errors[0].message).toBe(`${INVALID_KEY.slice(0, -1)}${hint}`);
      for (const [headers, detail] of [[{}, 'Not authenticated'], [{ 'X-Api-Key': 'dmk_nope' }, 'Invalid API key']] as const) {
        const response = await fetch(`${demo.url}/v2/deployments`, { headers });
        expect({ status: response.status, text: await response.text(), scheme: response.headers.get('www-authenticate') })
          .toEqual({ status: 401, text: JSON.stringify({ detail }), scheme: 'APIKey' });
      }
    } finally {
      await demo.close();
    }
  });

  it('accepts the key as X-Api-Key or as a Bearer token, header names in any case', async () => {
    expect(await tenantName({ 'X-Api-Key': acmeKey })).toBe('acme');
    expect(await tenantName({ 'x-api-key': acmeKey })).toBe('acme');
    expect(await tenantName({ Authorization: `Bearer ${acmeKey}` })).toBe('acme');
    expect(await tenantName({ authorization: `bearer ${acmeKey}` })).toBe('acme');
  });

  it('rejects unknown, malformed and tampered keys with 401 "Invalid API key"', async () => {
    const tampered = acmeKey.slice(0, -1) + (acmeKey.endsWith('A') ? 'B' : 'A');
    for (const key of [tampered, 'dmk_nope', 'not-a-key', `${acmeKey} `.repeat(2), displayPrefix(acmeKey)]) {
      const { status, body } = await app.graphql(TENANT_QUERY, { 'X-Api-Key': key });
      expect({ key, status, body }).toEqual({ key, status: 401, body: { errors: [{ message: INVALID_KEY, extensions: { code: 'UNAUTHENTICATED' } }] } });
    }
  });

  it('rejects a revoked key, immediately', async () => {
    const key = await issueKey(db.orm.em, [ACME]);
    expect(await tenantName({ 'X-Api-Key': key })).toBe('acme');
    await revokeApiKey(db.orm.em.fork(), displayPrefix(key));
    const { status, body } = await app.graphql(TENANT_QUERY, { 'X-Api-Key': key });
    expect(status).toBe(401);
    expect(body.errors[0].message).toBe(INVALID_KEY);
  });

  it('uses the only tenant of a single-tenant key when X-Tenant-Id is omitted', async () => {
    expect(await tenantName({ 'X-Api-Key': acmeKey })).toBe('acme');
    expect(await tenantName({ 'X-Api-Key': acmeKey, 'X-Tenant-ID': ACME })).toBe('acme');
    expect(await tenantName({ 'X-Api-Key': acmeKey, 'X-Tenant-Id': ACME.toUpperCase() })).toBe('acme');
  });

  it('refuses a tenant the key was not granted with 403 FORBIDDEN, naming the tenant', async () => {
    const { status, body } = await app.graphql(TENANT_QUERY, { 'X-Api-Key': acmeKey, 'X-Tenant-Id': GLOBEX });
    expect(status).toBe(403);
    expect(body.errors).toEqual([{ message: `Tenant ${GLOBEX} is not accessible with this API key`, extensions: { code: 'FORBIDDEN' } }]);
    const unknown = await app.graphql(TENANT_QUERY, { 'X-Api-Key': acmeKey, 'X-Tenant-Id': 'not-a-uuid' });
    expect(unknown.status).toBe(403);
    expect(unknown.body.errors[0].message).toBe('Tenant not-a-uuid is not accessible with this API key');
  });

  it('requires X-Tenant-Id for a key with several tenants, and honours it', async () => {
    const { status, body } = await app.graphql(TENANT_QUERY, { 'X-Api-Key': bothKey });
    expect(status).toBe(403);
    expect(body.errors).toEqual([{ message: 'requires workspace specification', extensions: { code: 'FORBIDDEN' } }]);
    expect(await tenantName({ 'X-Api-Key': bothKey, 'X-Tenant-Id': ACME })).toBe('acme');
    expect(await tenantName({ 'X-Api-Key': bothKey, 'X-Tenant-Id': GLOBEX })).toBe('globex');
  });

  it('does not let node(id:) reach another tenant', async () => {
    const globexId = (await app.graphql(TENANT_QUERY, { 'X-Api-Key': bothKey, 'X-Tenant-Id': GLOBEX })).body.data.tenant.id;
    const asAcme = await app.graphql('query($id: ID!) { node(id: $id) { id ... on Tenant { name } } }', { 'X-Api-Key': acmeKey }, { id: globexId });
    expect(asAcme.body).toEqual({ data: { node: null } });
    const asGlobex = await app.graphql('query($id: ID!) { node(id: $id) { id ... on Tenant { name } } }', { 'X-Api-Key': bothKey, 'X-Tenant-Id': GLOBEX }, { id: globexId });
    expect(asGlobex.body.data.node.name).toBe('globex');
  });

  it('refuses to issue a key for a malformed or unknown tenant', async () => {
    await expect(issueKey(db.orm.em, ['not-a-uuid'])).rejects.toThrow('tenant "not-a-uuid" is not a UUID');
    await expect(issueKey(db.orm.em, ['aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'])).rejects.toThrow('unknown tenant');
  });

  it('stores only a hash of each key', async () => {
    const rows = await db.query<{ row: string }>('select k::text as row from api_key k');
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const { row } of rows) {
      expect(row).not.toContain(acmeKey);
      expect(row).not.toContain(bothKey);
    }
    const stored = await db.orm.em.fork().getRepository(ApiKeySchema).listAll();
    expect(stored.every((k) => /^[0-9a-f]{64}$/.test(k.keyHash) && k.prefix.startsWith('dmk_'))).toBe(true);
  });
});
