// The REST write routes as a legacy client sees them: whole answer texts for create, PATCH, delete, bulk
// delete and redeploy, written from shared/spec/original-write-side.md and the semantics issue 42 fixes
// (first revision only for something to build, a PATCH's revision exactly when the original makes one,
// whole-list secrets, immutable fields, synchronous delete, redeploy as a new revision), never from our output.
// Validation, permissions, If-Match and Idempotency-Key: rest-write-conditions.test.ts.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME, ACME_DEPLOYMENT, ACME_INTEGRATION, GLOBEX } from './support/fixtures.ts';
import { newerAcmeDeployments } from './support/graphql-expect.ts';
import { acmeCheckout } from './support/legacy-rest-expected.ts';
import {
  MASK, UNKNOWN_ID, deploymentNotFound, deploymentRecord, detail, expectJsonText, pydantic, resourceSpec, restCaller, revisionConfig,
  revisionNotFound, sourceConfig, valueError, writtenParts, type RecordFields,
} from './support/write-calls.ts';
import { uploadArchive } from './support/object-http.ts';

const DOOMED = randomUUID();
const DOOMED_REVISION = randomUUID();
const [CHECKOUT_DEPLOYED, CHECKOUT_BUILDING] = ['66666666-6666-4666-8666-666666666661', '66666666-6666-4666-8666-666666666662'];
const LISTENER = '44444444-4444-4444-8444-444444444444';
const OTHER_LISTENER = '44444444-4444-4444-8444-444444444445';
/** Stands for the object path of an archive uploaded for the deployment at hand. */
const UPLOADED = '<uploaded archive>';
const IMAGE = 'registry.example.com/acme/agent@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

/** A deployment of ACME with tags, secrets, secret references and a revision: what a delete must remove. */
const DOOMED_DOCUMENT = {
  deployments: newerAcmeDeployments(1, () => ({
    id: DOOMED, name: 'doomed', tag_value_ids: ['77777777-7777-4777-8777-777777777771'],
    secret_references: [{ name: 'SMTP_PASSWORD', secret_name: 'mail', secret_key: 'password' }],
    revisions: [{ id: DOOMED_REVISION, status: 'DEPLOYED', created_at: '2030-01-01T00:00:30.000Z' }],
    latest_revision_id: DOOMED_REVISION, active_revision_id: DOOMED_REVISION,
  })),
};

let fixture: FixtureApp<'writer' | 'writerSecrets' | 'globexWriter'>;
beforeAll(async () => {
  fixture = await startFixtureApp([DOOMED_DOCUMENT], {
    writer: { tenants: [ACME], mayWrite: true }, writerSecrets: { tenants: [ACME], mayWrite: true, mayReadSecrets: true },
    globexWriter: { tenants: [GLOBEX], mayWrite: true },
  });
  // The listeners the deployments below name (a create needs a listener of the tenant and one of its namespaces).
  for (const [id, namespace] of [[LISTENER, 'agents'], [OTHER_LISTENER, 'other']]) {
    await fixture.db.query(`insert into listener (id, tenant_id, compute_type, compute_id, k8s_namespaces, created_at, updated_at)
      values ($1, $2, 'k8s', $3, $4::jsonb, now(), now())`, [id, ACME, id, JSON.stringify([namespace])]);
  }
});
afterAll(() => fixture?.close());

const call = restCaller(() => fixture.app.url, () => fixture.keys.writer);
/** The maker's CLI create body (§6.3). */
const cliCreate = (name: string, secrets: { name: string; value: string }[] = []) =>
  ({ name, source: 'internal_docker', source_config: { deployment_type: 'dev' }, source_revision_config: {}, secrets });
const externalDocker = (name: string, extra: Record<string, unknown> = {}) =>
  ({ name, source: 'external_docker', source_config: {}, source_revision_config: {}, secrets: [], ...extra });
const githubCreate = (name: string) => ({
  name, source: 'github', source_config: { integration_id: ACME_INTEGRATION, repo_url: 'https://github.com/acme/checkout' },
  source_revision_config: { repo_ref: 'main', graph_config_path: 'config/graph.json' }, secrets: [],
});

async function create(body: unknown, key = fixture.keys.writer) {
  const answer = await call('POST', '/v2/deployments', { body, key });
  expect(answer.status, answer.text).toBe(201);
  return answer.json;
}
/** The rows stored for a deployment, by table (the tag values are its tags). */
async function storedRowsOf(id: string): Promise<Record<string, number>> {
  const tables = ['revision', 'secret', 'secret_reference', 'deployment_tag_value'];
  const [row] = await fixture.db.query<Record<string, number>>(`select (select count(*) from deployment where id = $1)::int as deployment, ${
    tables.map((table) => `(select count(*) from ${table} where deployment_id = $1)::int as ${table}`).join(', ')}`, [id]);
  return row!;
}
const revisionsOf = async (id: string, query = 'limit=100') => (await call('GET', `/v2/deployments/${id}/revisions?${query}`)).json;

describe('POST /v2/deployments', () => {
  it('answers the CLI\'s create body 201 with the whole record: no revision yet, AWAITING_DATABASE, secrets masked', async () => {
    const answer = await call('POST', '/v2/deployments', { body: cliCreate('agent-one', [{ name: 'API_TOKEN', value: 's3cret-1' }]) });
    const written = writtenParts(answer.json, ACME);
    expect(written.latest_revision_id).toBeNull();
    expect(written.created_at).toBe(written.updated_at);
    const fields: RecordFields = { name: 'agent-one', source: 'internal_docker', secrets: [{ name: 'API_TOKEN', value: MASK }] };
    expectJsonText(answer, 201, deploymentRecord(fields, written));
    expect(answer.headers.get('etag')).toMatch(/^"\d+-masked-[0-9a-f]{24}"$/);
    expect(answer.headers.get('location')).toBe(`/v2/deployments/${written.id}`);
    const read = await call('GET', `/v2/deployments/${written.id}`);
    expect({ status: read.status, text: read.text }).toEqual({ status: 200, text: answer.text });
    expectJsonText(await call('GET', `/v2/deployments/${written.id}/revisions`), 200, { resources: [], offset: 0 });
  });

  it('shows secret values in clear to a key with the read-secrets scope', async () => {
    const answer = await call('POST', '/v2/deployments', { key: fixture.keys.writerSecrets, body: cliCreate('agent-clear', [{ name: 'A', value: 'one' }, { name: 'B', value: 'two' }]) });
    const secrets = [{ name: 'A', value: 'one' }, { name: 'B', value: 'two' }];
    expectJsonText(answer, 201, deploymentRecord({ name: 'agent-clear', source: 'internal_docker', secrets }, writtenParts(answer.json, ACME)));
    expect(answer.headers.get('etag')).toMatch(/^"\d+-[0-9a-f]{24}"$/);
    expect((await call('GET', `/v2/deployments/${answer.json.id}`, { key: fixture.keys.writerSecrets })).text).toBe(answer.text);
    expect((await call('GET', `/v2/deployments/${answer.json.id}`)).json.secrets).toEqual([{ name: 'A', value: MASK }, { name: 'B', value: MASK }]);
  });

  it.each([
    ['image_uri', { name: 'first-image', source: 'internal_docker', source_config: {}, source_revision_config: { image_uri: IMAGE }, secrets: [] }],
    ['repo_ref', githubCreate('first-repo')],
  ])('makes the first revision (QUEUED) when source_revision_config names something to build: %s', async (_, body) => {
    const answer = await call('POST', '/v2/deployments', { body });
    const written = writtenParts(answer.json, ACME);
    expect(written.latest_revision_id).not.toBeNull();
    expectJsonText(answer, 201, deploymentRecord(body as RecordFields, written));
    const revisions = await call('GET', `/v2/deployments/${written.id}/revisions`);
    const [revision] = revisions.json.resources;
    expectJsonText(revisions, 200, {
      resources: [{ id: written.latest_revision_id, created_at: revision.created_at, updated_at: revision.created_at, status: 'QUEUED', source: body.source, source_revision_config: revisionConfig(body.source_revision_config) }],
      offset: 1,
    });
  });

  it('refuses a create naming a source_tarball_path: only a path issued for the deployment is accepted, and it has none yet', async () => {
    const body = { name: 'first-tarball', source: 'internal_source', source_config: {}, source_revision_config: { source_tarball_path: 'uploads/a.tar.gz', graph_config_path: 'graph.json' }, secrets: [] };
    expectJsonText(await call('POST', '/v2/deployments', { body }), 422, {
      detail: [valueError(['body', 'source_revision_config', 'source_tarball_path'], 'uploads/a.tar.gz',
        'a create cannot name a source archive: create the deployment, ask POST /v2/deployments/{deployment_id}/upload-url for an upload, PUT the archive, then PATCH its object_path in')],
    });
    expect((await call('GET', '/v2/deployments?name_contains=first-tarball')).json.resources).toEqual([]);
  });

  it('makes no revision for a config path alone (internal_source with {} is the CLI\'s remote create, accepted too)', async () => {
    for (const [name, config] of [['path-only', { graph_config_path: 'graph.json' }], ['remote-empty', {}]] as const) {
      const answer = await call('POST', '/v2/deployments', { body: { name, source: 'internal_source', source_config: { deployment_type: 'prod' }, source_revision_config: config, secrets: [] } });
      const written = writtenParts(answer.json, ACME);
      expect(written.latest_revision_id).toBeNull();
      expectJsonText(answer, 201, deploymentRecord({ name, source: 'internal_source', source_config: { deployment_type: 'prod' }, source_revision_config: config }, written));
    }
  });

  it('keeps every value sent: external_docker with a resource spec (cpu rounded to one decimal), listener, URL, references', async () => {
    const body = externalDocker('full-docker', {
      source_config: {
        custom_url: 'https://agent.acme.example', listener_id: LISTENER, listener_config: { k8s_namespace: 'agents' },
        resource_spec: { min_scale: 1, max_scale: 3, cpu: 1.26, cpu_limit: 2.56, memory_mb: 512, labels: { team: 'ai' } },
        deployment_type: 'prod', install_command: 'pip install .',
      },
      secret_references: [{ name: 'SMTP_PASSWORD', secret_name: 'mail', secret_key: 'password' }],
    });
    const answer = await call('POST', '/v2/deployments', { body });
    expectJsonText(answer, 201, deploymentRecord({
      name: 'full-docker', source: 'external_docker',
      source_config: {
        custom_url: 'https://agent.acme.example', listener_id: LISTENER, listener_config: { k8s_namespace: 'agents' },
        resource_spec: resourceSpec({ min_scale: 1, max_scale: 3, cpu: 1.3, cpu_limit: 2.6, memory_mb: 512, labels: { team: 'ai' } }),
        deployment_type: 'prod', install_command: 'pip install .',
      },
      secret_references: [{ name: 'SMTP_PASSWORD', secret_name: 'mail', secret_key: 'password' }],
    }, writtenParts(answer.json, ACME)));
  });

  it('refuses a name the tenant already has (409, nothing created); another tenant may have it', async () => {
    await create(cliCreate('taken-name'));
    expectJsonText(await call('POST', '/v2/deployments', { body: cliCreate('taken-name') }), 409, detail('A deployment named "taken-name" already exists.'));
    expect((await call('GET', '/v2/deployments?name_contains=taken-name')).json.resources).toHaveLength(1);
    expect((await call('POST', '/v2/deployments', { key: fixture.keys.globexWriter, body: cliCreate('taken-name') })).status).toBe(201);
  });
});

describe('PATCH /v2/deployments/{deployment_id}', () => {
  it('answers the CLI\'s local-build PATCH 200 with a new revision already in latest_revision_id, first in revisions?limit=1, QUEUED', async () => {
    const created = await create(cliCreate('local-build', [{ name: 'OLD', value: 'x' }]));
    const body = { revision_source: 'internal_docker', source_revision_config: { image_uri: IMAGE }, tracked_packages: ['google-adk:1.2.3'], secrets: [{ name: 'API_TOKEN', value: 'y' }] };
    const answer = await call('PATCH', `/v2/deployments/${created.id}`, { body });
    const written = writtenParts(answer.json, ACME);
    expect(written.created_at).toBe(created.created_at);
    expect(written.updated_at > created.updated_at).toBe(true);
    expect(written.latest_revision_id).not.toBeNull();
    expectJsonText(answer, 200, deploymentRecord({
      name: 'local-build', source: 'internal_docker', source_revision_config: { image_uri: IMAGE }, secrets: [{ name: 'API_TOKEN', value: MASK }],
    }, written));
    expect(answer.text).not.toContain('tracked_packages');
    const latest = await call('GET', `/v2/deployments/${created.id}/revisions?limit=1`);
    const { created_at: at } = latest.json.resources[0];
    const revision = { id: written.latest_revision_id, created_at: at, updated_at: at, status: 'QUEUED', source: 'internal_docker', source_revision_config: revisionConfig({ image_uri: IMAGE }) };
    expectJsonText(latest, 200, { resources: [revision], offset: 1 });
    expectJsonText(await call('GET', `/v2/deployments/${created.id}/revisions/${written.latest_revision_id}`), 200, revision);
    expect((await call('GET', `/v2/deployments/${created.id}`)).text).toBe(answer.text);
  });

  // Which PATCH makes a revision (§2.2): a non-null revision field, `secrets` (also []), `resource_spec`; nothing else.
  it.each([
    ['{}', 'internal_docker', {}, false],
    ['install_command alone', 'internal_docker', { source_config: { install_command: 'npm ci' } }, false],
    ['build_command alone', 'internal_source', { source_config: { build_command: 'npm run build' } }, false],
    ['revision_source alone', 'internal_docker', { revision_source: 'internal_docker' }, false],
    ['nulls everywhere', 'internal_docker', { revision_source: null, source_config: null, source_revision_config: null, secrets: null, secret_references: null }, false],
    ['revision fields null', 'internal_docker', { source_revision_config: { image_uri: null }, source_config: { resource_spec: null } }, false],
    ['custom_url', 'external_docker', { source_config: { custom_url: 'https://x.example' } }, false],
    ['secret_references', 'external_docker', { secret_references: [{ name: 'A', secret_name: 's', secret_key: 'k' }] }, false],
    ['image_uri', 'internal_docker', { source_revision_config: { image_uri: IMAGE } }, true],
    ['graph_config_path', 'internal_source', { source_revision_config: { graph_config_path: 'graph.json' } }, true],
    ['source_tarball_path', 'internal_source', { source_revision_config: { source_tarball_path: UPLOADED, graph_config_path: 'graph.json' } }, true],
    ['repo_ref', 'github', { source_revision_config: { repo_ref: 'develop' } }, true],
    ['secrets []', 'internal_docker', { secrets: [] }, true],
    ['secrets', 'internal_docker', { secrets: [{ name: 'A', value: 'b' }] }, true],
    ['resource_spec', 'external_docker', { source_config: { resource_spec: { cpu: 1 } } }, true],
  ])('%s on %s: a new revision %s', async (_, source, body, revises) => {
    const name = `revises-${randomUUID().slice(0, 8)}`;
    const created = await create(source === 'github' ? githubCreate(name) : { name, source, source_config: {}, source_revision_config: {}, secrets: [] });
    const before = await revisionsOf(created.id);
    // An archive is named by the path its upload was issued under (uploaded first).
    const sent = JSON.stringify(body).includes(UPLOADED) ? JSON.stringify(body).replace(UPLOADED, await uploadArchive(call, created.id)) : body;
    const answer = await call('PATCH', `/v2/deployments/${created.id}`, { body: sent });
    expect(answer.status, answer.text).toBe(200);
    const after = await revisionsOf(created.id);
    expect(after.resources.length).toBe(before.resources.length + (revises ? 1 : 0));
    expect(answer.json.latest_revision_id).toBe(revises ? after.resources[0].id : created.latest_revision_id);
    if (revises) expect(after.resources[0].status).toBe('QUEUED');
  });

  it('a PATCH that changes nothing answers the current representation: same ETag and updated_at, no new version, readers still 304', async () => {
    const created = await create({ name: `unchanged-${randomUUID().slice(0, 8)}`, source: 'internal_source', source_config: { install_command: 'npm ci' }, source_revision_config: {}, secrets: [] });
    const path = `/v2/deployments/${created.id}`;
    const read = await call('GET', path);
    const listTag = (await call('GET', '/v2/deployments?limit=1')).headers.get('etag')!;
    for (const body of [{}, { source_config: { install_command: 'npm ci' } }, { revision_source: 'internal_source', source_config: { deployment_type: 'dev' } }, { secrets: null, source_revision_config: null }]) {
      const patched = await call('PATCH', path, { body, headers: { 'if-match': read.headers.get('etag')! } });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.text, JSON.stringify(body)).toBe(read.text);
      expect(patched.headers.get('etag')).toBe(read.headers.get('etag'));
    }
    // Nothing any answer shows moved: a reader's tags still hold (no update reached the tenant's data version).
    expect((await call('GET', path, { headers: { 'if-none-match': read.headers.get('etag')! } })).status).toBe(304);
    expect((await call('GET', '/v2/deployments?limit=1', { headers: { 'if-none-match': listTag } })).status).toBe(304);
    // A value that differs is a change: a new version.
    const changed = await call('PATCH', path, { body: { source_config: { install_command: 'pnpm install' } } });
    expect(changed.json.updated_at).not.toBe(created.updated_at);
    expect(changed.headers.get('etag')).not.toBe(read.headers.get('etag'));
  });

  it('changes the source_config fields sent and keeps the others', async () => {
    const created = await create({ name: 'commands', source: 'internal_source', source_config: { install_command: 'npm ci', build_command: 'npm run build' }, source_revision_config: {}, secrets: [] });
    const answer = await call('PATCH', `/v2/deployments/${created.id}`, { body: { source_config: { install_command: 'pnpm install' } } });
    expectJsonText(answer, 200, deploymentRecord({
      name: 'commands', source: 'internal_source', source_config: { install_command: 'pnpm install', build_command: 'npm run build' },
    }, writtenParts(answer.json, ACME)));
  });

  it('replaces the whole list of secrets with a non-null one; null or absent keeps it', async () => {
    const key = fixture.keys.writerSecrets;
    const created = await create(cliCreate('secret-lists', [{ name: 'A', value: '1' }, { name: 'B', value: '2' }]), key);
    const secretsAfter = async (body: unknown) => {
      const answer = await call('PATCH', `/v2/deployments/${created.id}`, { key, body });
      expect(answer.status, answer.text).toBe(200);
      expect((await call('GET', `/v2/deployments/${created.id}`, { key })).json.secrets).toEqual(answer.json.secrets);
      return answer.json.secrets;
    };
    expect(await secretsAfter({ secrets: [{ name: 'C', value: '3' }] })).toEqual([{ name: 'C', value: '3' }]);
    expect(await secretsAfter({ secrets: null })).toEqual([{ name: 'C', value: '3' }]);
    expect(await secretsAfter({ source_config: { install_command: 'make' } })).toEqual([{ name: 'C', value: '3' }]);
    expect(await secretsAfter({ secrets: [{ name: 'B', value: 'new' }, { name: 'A', value: 'again' }] })).toEqual([{ name: 'B', value: 'new' }, { name: 'A', value: 'again' }]);
    expect(await secretsAfter({ secrets: [] })).toEqual([]);
  });

  it('replaces the whole list of secret references with a non-null one; null or absent keeps it', async () => {
    const reference = (name: string) => ({ name, secret_name: `k8s-${name.toLowerCase()}`, secret_key: 'value' });
    const created = await create(externalDocker('reference-lists', { secret_references: [reference('A'), reference('B')] }));
    const referencesAfter = async (body: unknown) => (await call('PATCH', `/v2/deployments/${created.id}`, { body })).json.secret_references;
    expect(await referencesAfter({ secret_references: [reference('C')] })).toEqual([reference('C')]);
    expect(await referencesAfter({ secret_references: null })).toEqual([reference('C')]);
    expect(await referencesAfter({ secrets: [] })).toEqual([reference('C')]);
    expect(await referencesAfter({ secret_references: [] })).toEqual([]);
  });

  it('overwrites the whole resource spec with the one sent, cpu values rounded to one decimal', async () => {
    const created = await create(externalDocker('spec-overwrite', { source_config: { resource_spec: { min_scale: 2, max_scale: 4, cpu: 2, memory_mb: 1024 } } }));
    const answer = await call('PATCH', `/v2/deployments/${created.id}`, { body: { source_config: { resource_spec: { cpu: 0.44, cpu_limit: 3.94, sidecars: [{ name: 'proxy', image: 'envoy:1' }] } } } });
    const sidecar = {
      name: 'proxy', image: 'envoy:1', imagePullPolicy: null, workingDir: null, restartPolicy: null, command: null, args: null,
      env: null, envFrom: null, resources: null, volumeMounts: null, securityContext: null,
    };
    expectJsonText(answer, 200, deploymentRecord({
      name: 'spec-overwrite', source: 'external_docker', source_config: { resource_spec: resourceSpec({ cpu: 0.4, cpu_limit: 3.9, sidecars: [sidecar] }) },
    }, writtenParts(answer.json, ACME)));
  });

  it('refuses an immutable field sent with another value (422 naming each) and changes nothing; the same value is fine', async () => {
    const created = await create(externalDocker('immutable-docker', { source_config: { deployment_type: 'prod', listener_id: LISTENER, listener_config: { k8s_namespace: 'agents' } } }));
    const before = await call('GET', `/v2/deployments/${created.id}`);
    const refused = await call('PATCH', `/v2/deployments/${created.id}`, {
      body: { source_config: { deployment_type: 'dev', listener_id: OTHER_LISTENER, listener_config: { k8s_namespace: 'other' }, install_command: 'x' }, secrets: [] },
    });
    expectJsonText(refused, 422, {
      detail: [
        valueError(['body', 'source_config', 'deployment_type'], 'dev', 'deployment_type cannot be changed'),
        valueError(['body', 'source_config', 'listener_id'], OTHER_LISTENER, 'listener_id cannot be changed'),
        valueError(['body', 'source_config', 'listener_config', 'k8s_namespace'], 'other', 'k8s_namespace cannot be changed'),
      ],
    });
    expect((await call('GET', `/v2/deployments/${created.id}`)).text).toBe(before.text);
    const same = await call('PATCH', `/v2/deployments/${created.id}`, { body: { source_config: { deployment_type: 'prod', listener_id: LISTENER.toUpperCase(), listener_config: { k8s_namespace: 'agents' } } } });
    expect(same.status, same.text).toBe(200);

    const github = await create(githubCreate('immutable-github'));
    expectJsonText(await call('PATCH', `/v2/deployments/${github.id}`, { body: { source_config: { integration_id: UNKNOWN_ID, repo_url: 'https://github.com/acme/other' } } }), 422, {
      detail: [
        valueError(['body', 'source_config', 'integration_id'], UNKNOWN_ID, 'integration_id cannot be changed'),
        valueError(['body', 'source_config', 'repo_url'], 'https://github.com/acme/other', 'repo_url cannot be changed'),
      ],
    });
  });

  it('answers 404 for an unknown deployment and 422 for a malformed id, before looking at anything else', async () => {
    expectJsonText(await call('PATCH', `/v2/deployments/${UNKNOWN_ID}`, { body: { secrets: [] } }), 404, deploymentNotFound(UNKNOWN_ID));
    expectJsonText(await call('PATCH', '/v2/deployments/nope', { body: { secrets: 'x' } }), 422, {
      detail: [
        pydantic('uuid_parsing', ['path', 'deployment_id'], 'Input should be a valid UUID, invalid character: found `n` at 1', 'nope', { error: 'invalid character: found `n` at 1' }),
        pydantic('list_type', ['body', 'secrets'], 'Input should be a valid list', 'x'),
      ],
    });
  });
});

describe('DELETE /v2/deployments/{deployment_id}', () => {
  it('answers 204 with no body; then GET, its revisions and a second DELETE are 404, and nothing of it is stored', async () => {
    expect(await storedRowsOf(DOOMED)).toEqual({ deployment: 1, revision: 1, secret: 2, secret_reference: 1, deployment_tag_value: 1 });
    const answer = await call('DELETE', `/v2/deployments/${DOOMED}`);
    expect({ status: answer.status, text: answer.text }).toEqual({ status: 204, text: '' });
    for (const path of [`/v2/deployments/${DOOMED}`, `/v2/deployments/${DOOMED}/revisions`, `/v2/deployments/${DOOMED}/revisions/${DOOMED_REVISION}`]) {
      expectJsonText(await call('GET', path), 404, deploymentNotFound(DOOMED));
    }
    expectJsonText(await call('DELETE', `/v2/deployments/${DOOMED}`), 404, deploymentNotFound(DOOMED));
    expect(await storedRowsOf(DOOMED)).toEqual({ deployment: 0, revision: 0, secret: 0, secret_reference: 0, deployment_tag_value: 0 });
    expect((await call('GET', `/v2/deployments/${ACME_DEPLOYMENT}`)).status).toBe(200);
  });

  it('accepts delete_tracing_project (a boolean, as FastAPI reads one)', async () => {
    const one = await create(cliCreate('tracing-true'));
    expect((await call('DELETE', `/v2/deployments/${one.id}?delete_tracing_project=true`)).status).toBe(204);
    const two = await create(cliCreate('tracing-bad'));
    expectJsonText(await call('DELETE', `/v2/deployments/${two.id}?delete_tracing_project=maybe`), 422, {
      detail: [pydantic('bool_parsing', ['query', 'delete_tracing_project'], 'Input should be a valid boolean, unable to interpret input', 'maybe')],
    });
    expect((await call('GET', `/v2/deployments/${two.id}`)).status).toBe(200);
  });
});

describe('DELETE /v2/deployments (bulk)', () => {
  const bulk = (ids: string[]) => call('DELETE', `/v2/deployments?${ids.map((id) => `deployment_ids=${id}`).join('&')}`);
  const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  const createdIds = async (prefix: string, n: number) => Promise.all(names(prefix, n).map(async (name) => (await create(cliCreate(name))).id as string));

  it('200 when all are deleted, in the order asked; each is gone', async () => {
    const ids = await createdIds('bulk-all', 3);
    expectJsonText(await bulk([ids[2]!, ids[0]!, ids[1]!]), 200, { deleted_ids: [ids[2], ids[0], ids[1]], failed: [] });
    for (const id of ids) expect((await call('GET', `/v2/deployments/${id}`)).status).toBe(404);
  });

  it('207 when some are not found, saying which and why; 404 when none is', async () => {
    const [id] = await createdIds('bulk-some', 1);
    expectJsonText(await bulk([UNKNOWN_ID, id!]), 207, {
      deleted_ids: [id], failed: [{ deployment_id: UNKNOWN_ID, status: 404, detail: `Deployment ID ${UNKNOWN_ID} not found.` }],
    });
    expectJsonText(await bulk([id!, UNKNOWN_ID]), 404, deploymentNotFound(id!));
  });

  it('deletes an id sent twice (in any spelling) once', async () => {
    const [id] = await createdIds('bulk-twice', 1);
    expectJsonText(await bulk([id!, id!.toUpperCase()]), 200, { deleted_ids: [id], failed: [] });
  });

  it('422 for more than 100 ids, for the comma-separated form and without the parameter', async () => {
    const many = Array.from({ length: 101 }, () => randomUUID());
    expectJsonText(await bulk(many), 422, {
      detail: [pydantic('too_long', ['query', 'deployment_ids'], 'List should have at most 100 items after validation, not 101', many, { field_type: 'List', max_length: 100, actual_length: 101 })],
    });
    const [id] = await createdIds('bulk-comma', 1);
    const comma = `${id},${UNKNOWN_ID}`;
    expectJsonText(await bulk([comma]), 422, {
      detail: [pydantic('uuid_parsing', ['query', 'deployment_ids', 0], 'Input should be a valid UUID, invalid character: found `,` at 37', comma, { error: 'invalid character: found `,` at 37' })],
    });
    expectJsonText(await call('DELETE', '/v2/deployments'), 422, { detail: [pydantic('missing', ['query', 'deployment_ids'], 'Field required', null)] });
    expect((await call('GET', `/v2/deployments/${id}`)).status).toBe(200);
  });
});

describe('POST /v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy', () => {
  it('makes a new QUEUED revision from the chosen revision\'s source_revision_config, the latest of the 200 answer', async () => {
    const answer = await call('POST', `/v2/deployments/${ACME_DEPLOYMENT}/revisions/${CHECKOUT_DEPLOYED}/redeploy`);
    expect(answer.status, answer.text).toBe(200);
    const chosen = revisionConfig({ repo_ref: 'main', graph_config_path: 'config/graph.json', image_uri: 'registry.example.com/acme/checkout:1.4.1', repo_commit_sha: 'fedcba9876543210fedcba9876543210fedcba98' });
    const { latest_revision_id: latest } = answer.json;
    expect([CHECKOUT_DEPLOYED, CHECKOUT_BUILDING]).not.toContain(latest);
    expect(answer.json.updated_at > acmeCheckout([MASK, MASK]).updated_at).toBe(true);
    expectJsonText(answer, 200, { ...acmeCheckout([MASK, MASK]), source_revision_config: chosen, updated_at: answer.json.updated_at, latest_revision_id: latest });
    const revisions = await revisionsOf(ACME_DEPLOYMENT, 'limit=3');
    expect(revisions.resources.map((r: { id: string }) => r.id)).toEqual([latest, CHECKOUT_BUILDING, CHECKOUT_DEPLOYED]);
    expect(revisions.resources[0]).toMatchObject({ status: 'QUEUED', source: 'github', source_revision_config: chosen });
    expect((await call('GET', `/v2/deployments/${ACME_DEPLOYMENT}`)).text).toBe(answer.text);
  });

  it('404 for a revision the deployment does not have, 404 for an unknown deployment, 422 for malformed ids', async () => {
    const other = await create({ name: 'redeploy-other', source: 'internal_docker', source_config: {}, source_revision_config: { image_uri: IMAGE }, secrets: [] });
    const redeploy = (id: string, revision: string) => call('POST', `/v2/deployments/${id}/revisions/${revision}/redeploy`);
    expectJsonText(await redeploy(ACME_DEPLOYMENT, UNKNOWN_ID), 404, revisionNotFound(UNKNOWN_ID));
    expectJsonText(await redeploy(ACME_DEPLOYMENT, other.latest_revision_id), 404, revisionNotFound(other.latest_revision_id));
    expectJsonText(await redeploy(UNKNOWN_ID, CHECKOUT_DEPLOYED), 404, deploymentNotFound(UNKNOWN_ID));
    expectJsonText(await redeploy('x', 'y'), 422, {
      detail: [
        pydantic('uuid_parsing', ['path', 'deployment_id'], 'Input should be a valid UUID, invalid character: found `x` at 1', 'x', { error: 'invalid character: found `x` at 1' }),
        pydantic('uuid_parsing', ['path', 'revision_id'], 'Input should be a valid UUID, invalid character: found `y` at 1', 'y', { error: 'invalid character: found `y` at 1' }),
      ],
    });
    expect((await revisionsOf(other.id)).resources).toHaveLength(1);
  });
});

describe('methods a write path does not have', () => {
  it.each([
    ['PUT', '/v2/deployments', ['GET', 'HEAD', 'POST', 'DELETE']],
    ['PATCH', '/v2/deployments', ['GET', 'HEAD', 'POST', 'DELETE']],
    ['PUT', `/v2/deployments/${ACME_DEPLOYMENT}`, ['GET', 'HEAD', 'PATCH', 'DELETE']],
    ['POST', `/v2/deployments/${ACME_DEPLOYMENT}`, ['GET', 'HEAD', 'PATCH', 'DELETE']],
    ['GET', `/v2/deployments/${ACME_DEPLOYMENT}/revisions/${CHECKOUT_DEPLOYED}/redeploy`, ['POST']],
    ['DELETE', `/v2/deployments/${ACME_DEPLOYMENT}/revisions/${CHECKOUT_DEPLOYED}`, ['GET', 'HEAD']],
  ])('%s %s: 405 with Allow naming the methods the path has', async (method, path, allowed) => {
    const answer = await call(method, path);
    expectJsonText(answer, 405, detail('Method Not Allowed'));
    expect(answer.headers.get('allow')!.split(', ').sort()).toEqual([...allowed].sort());
  });
});
