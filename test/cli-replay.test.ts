// The maker's CLI `deploy` and `deploy delete`, replayed request by request as raw HTTP, byte for byte as
// shared/spec/original-write-side.md §6 says the CLI sends them: `X-Api-Key` and `Accept: application/json`
// on every call, `Content-Type: application/json` only with a body, compact JSON in the CLI's key order,
// `X-Tenant-ID` once it has one. Each step asserts what the CLI reads of the answer (§6.3-§6.6) and that
// nothing in it would make the CLI fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME, GLOBEX } from './support/fixtures.ts';
import { cliHttp, lookUpByName } from './support/cli-http.ts';
import { TERMINAL_STATUSES } from './support/write-calls.ts';
import { uploadArchive } from './support/object-http.ts';

let fixture: FixtureApp<'cli' | 'twoTenants'>;
beforeAll(async () => {
  fixture = await startFixtureApp([], { cli: { tenants: [ACME], mayWrite: true }, twoTenants: { tenants: [ACME, GLOBEX], mayWrite: true } });
});
afterAll(() => fixture?.close());

const cli = cliHttp(() => fixture.app.url, () => fixture.keys.cli);
const lookUp = (name: string, tenant?: string, key?: string) => lookUpByName(cli, name, { tenant, key });

/** §6.5: the newest revision, polled once; its status must not end the CLI's poll (a build here never runs). */
async function pollOnce(id: string, patched: { latest_revision_id: string }, tenant?: string, key?: string): Promise<string> {
  const latest = await cli('GET', `/v2/deployments/${id}/revisions?limit=1`, { tenant, key });
  expect(latest.status).toBe(200);
  const rid = latest.json.resources[0].id;
  expect(rid).toBe(patched.latest_revision_id);
  const revision = await cli('GET', `/v2/deployments/${id}/revisions/${rid}`, { tenant, key });
  expect(revision.status).toBe(200);
  expect(revision.json.status).toBe('QUEUED');
  expect(TERMINAL_STATUSES).not.toContain(revision.json.status);
  return rid;
}

const digest = (hex: string) => `registry.example.com/acme/my-agent@sha256:${hex.repeat(64 / hex.length)}`;
const localPatch = (image: string, secrets: string) =>
  `{"revision_source":"internal_docker","source_revision_config":{"image_uri":"${image}"},"tracked_packages":["google-adk:1.2.3"],"secrets":${secrets}}`;
const SECRETS = '[{"name":"OPENAI_API_KEY","value":"sk-test-123"},{"name":"LOG_FORMAT","value":"json"}]';

describe('the CLI\'s `deploy` against a new name, local build, then `deploy` again, then `deploy delete`', () => {
  it('finds nothing, creates, PATCHes, polls, reads back; the second deploy finds it and PATCHes it; delete is an empty 204', async () => {
    expect(await lookUp('my-agent')).toBeUndefined();

    const created = await cli('POST', '/v2/deployments', {
      body: `{"name":"my-agent","source":"internal_docker","source_config":{"deployment_type":"dev"},"source_revision_config":{},"secrets":${SECRETS}}`,
    });
    expect(created.status).toBe(201);
    const { id } = created.json;
    expect(typeof id === 'string' && id.length > 0).toBe(true);

    const patched = await cli('PATCH', `/v2/deployments/${id}`, { body: localPatch(digest('ab'), SECRETS) });
    expect(patched.status).toBe(200);
    expect(patched.json.tenant_id).toBe(ACME);
    expect(patched.json.latest_revision_id).toEqual(expect.any(String));
    const first = await pollOnce(id, patched.json);

    const read = await cli('GET', `/v2/deployments/${id}`);
    expect(read.status).toBe(200);
    expect(read.json.source_config).toHaveProperty('custom_url', null);
    expect(read.json.tenant_id).toBe(ACME);

    expect(await lookUp('my-agent')).toBe(id);
    const again = await cli('PATCH', `/v2/deployments/${id}`, { body: localPatch(digest('cd'), '[]') });
    expect(again.status).toBe(200);
    const second = await pollOnce(id, again.json);
    expect(second).not.toBe(first);
    expect((await cli('GET', `/v2/deployments/${id}/revisions`)).json.resources.map((r: { id: string }) => r.id)).toEqual([second, first]);

    const deleted = await cli('DELETE', `/v2/deployments/${id}`);
    expect({ status: deleted.status, length: deleted.raw.body.length }).toEqual({ status: 204, length: 0 });
    expect(await lookUp('my-agent')).toBeUndefined();
  });
});

describe('the CLI\'s `deploy --remote`', () => {
  it('creates an internal_source deployment with an empty source_revision_config, uploads its archive and PATCHes it in', async () => {
    expect(await lookUp('my-remote')).toBeUndefined();
    const created = await cli('POST', '/v2/deployments', {
      body: '{"name":"my-remote","source":"internal_source","source_config":{"deployment_type":"prod"},"source_revision_config":{},"secrets":[]}',
    });
    expect(created.status).toBe(201);
    const { id } = created.json;
    expect(typeof id === 'string' && id.length > 0).toBe(true);
    // §6.3: POST …/upload-url without a body, then a PUT of the archive to upload_url without a key.
    const archive = await uploadArchive(cli, id);
    const patched = await cli('PATCH', `/v2/deployments/${id}`, {
      body: `{"revision_source":"internal_source","source_revision_config":{"source_tarball_path":"${archive}","graph_config_path":"graph.json"},"source_config":{"install_command":"npm ci"},"secrets":[]}`,
    });
    expect(patched.status).toBe(200);
    expect(patched.json.tenant_id).toBe(ACME);
    await pollOnce(id, patched.json);
    const read = await cli('GET', `/v2/deployments/${id}`);
    expect(read.json.source_config).toHaveProperty('custom_url', null);
    expect(read.json.source_config.install_command).toBe('npm ci');
  });
});

describe('a key with two workspaces', () => {
  it('is asked which (403 "requires workspace specification"), and with X-Tenant-ID on every later call deploys there', async () => {
    const key = fixture.keys.twoTenants;
    const refused = await cli('GET', '/v2/deployments?name_contains=my-workspace-agent', { key });
    expect(refused.status).toBe(403);
    // The CLI matches this substring of "<METHOD> <path> failed with status 403: <raw body>".
    expect(refused.raw.body.toString('utf8')).toContain('requires workspace specification');

    expect(await lookUp('my-workspace-agent', ACME, key)).toBeUndefined();
    const created = await cli('POST', '/v2/deployments', {
      key, tenant: ACME,
      body: '{"name":"my-workspace-agent","source":"internal_docker","source_config":{"deployment_type":"dev"},"source_revision_config":{},"secrets":[]}',
    });
    expect(created.status).toBe(201);
    const patched = await cli('PATCH', `/v2/deployments/${created.json.id}`, { key, tenant: ACME, body: localPatch(digest('ef'), '[]') });
    expect(patched.status).toBe(200);
    expect(patched.json.tenant_id).toBe(ACME);
    await pollOnce(created.json.id, patched.json, ACME, key);
    expect(await lookUp('my-workspace-agent', GLOBEX, key)).toBeUndefined();
    const deleted = await cli('DELETE', `/v2/deployments/${created.json.id}`, { key, tenant: ACME });
    expect({ status: deleted.status, length: deleted.raw.body.length }).toEqual({ status: 204, length: 0 });
  });
});
