// The REST writes in the OpenAPI document (docs/rest.md#writes): each write route declares its request body
// (with an example that works as it is, which Swagger UI's "Try it out" starts with), the headers of its
// success, and every answer it gives; and every one of those answers, produced for real, conforms to the schema
// the document declares for it. Only 500 is left out: nothing a client sends produces it.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../src/modules/idempotency/idempotency-key.ts';
import { hashApiKey } from '../src/modules/tenancy/api-key-secret.ts';
import { ContainerRegistry } from '../src/modules/registry/container-registry.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { holdLock } from './support/parked-writes.ts';
import { ACME, ACME_DEPLOYMENT, GLOBEX_DEPLOYMENT } from './support/fixtures.ts';
import {
  DEPLOYMENT, DEPLOYMENTS, PUSH_TOKEN, REDEPLOY, UPLOAD_URL, openApiConformance,
} from './support/openapi-conformance.ts';

const UNKNOWN = '0badc0de-0000-4000-8000-000000000000';
/** checkout-prod's revisions (the fixture's). */
const CHECKOUT_REVISION = '66666666-6666-4666-8666-666666666661';

type Method = 'post' | 'patch' | 'delete';
const WRITES: [Method, string][] = [
  ['post', DEPLOYMENTS], ['patch', DEPLOYMENT], ['delete', DEPLOYMENT], ['delete', DEPLOYMENTS], ['post', REDEPLOY], ['post', PUSH_TOKEN], ['post', UPLOAD_URL],
];

interface Call {
  method: Method;
  template: string;
  path: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  status: number;
  /** Another app on the same database (one with a registry); default: the fixture's. */
  app?: string;
}

describe('REST writes in the OpenAPI document', () => {
  let fixture: FixtureApp<'writer' | 'masked' | 'reader'>;
  let conformance: Awaited<ReturnType<typeof openApiConformance>>;
  let withRegistry: RunningApp;
  const seen = new Set<string>();

  beforeAll(async () => {
    fixture = await startFixtureApp([], {
      writer: { tenants: [ACME], mayWrite: true, mayReadSecrets: true },
      masked: { tenants: [ACME], mayWrite: true },
      reader: { tenants: [ACME], mayReadSecrets: true },
    });
    conformance = await openApiConformance(fixture.app.url);
    // push-token's 200 needs a registry to issue for; nothing here asks the registry anything.
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    withRegistry = await startApp(fixture.db.orm, fixture.cipher, undefined, {
      registry: new ContainerRegistry({
        url: 'http://registry.invalid:5000', repositoryPrefix: 'deployments', service: 'registry.invalid:5000', issuer: 'test',
        signingKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      }),
    });
  });
  afterAll(async () => {
    await withRegistry?.close();
    await fixture?.close();
  });

  const operation = (method: Method, template: string) => conformance.spec.paths[template][method];

  /** Sends the call, checks its status and that its body conforms; the answer. */
  async function send(call: Call) {
    const response = await fetch(`${call.app ?? fixture.app.url}${call.path}`, {
      method: call.method.toUpperCase(),
      headers: { 'x-api-key': fixture.keys.writer, ...(call.body !== undefined && { 'content-type': 'application/json' }), ...call.headers },
      body: call.body as BodyInit | undefined,
    });
    const text = await response.text();
    const answer = { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
    expect(answer.status, `${call.method} ${call.path}: ${text}`).toBe(call.status);
    if (answer.status === 204) expect(text).toBe('');
    else conformance.expectConforms(call.template, answer, call.method);
    // Every header the document promises for this answer is there.
    for (const name of Object.keys(operation(call.method, call.template).responses[call.status].headers ?? {})) {
      if (name !== 'Idempotent-Replayed') expect(response.headers.get(name), `${call.method} ${call.path} ${call.status} ${name}`).toBeTruthy();
    }
    seen.add(`${call.method} ${call.template} ${call.status}`);
    return answer;
  }

  const create = (name: string, source = 'internal_docker', extra: Record<string, unknown> = {}) =>
    JSON.stringify({ name, source, source_config: {}, source_revision_config: {}, secrets: [{ name: 'A', value: 'a' }], ...extra });

  /** A key a request is running under: a transaction of the test's holds its lock until released. */
  async function runningKey(): Promise<{ key: string; release: () => Promise<void> }> {
    const key = randomUUID();
    const [{ id }] = await fixture.db.query<{ id: string }>('select id from api_key where key_hash = $1', [hashApiKey(fixture.keys.writer)]) as [{ id: string }];
    const holder = await holdLock(fixture.db, 'select pg_advisory_xact_lock(hashtextextended($1, 0))', [`idempotency-key/${ACME}/${id}/${key}`]);
    return { key, release: () => holder.release() };
  }

  /** A key whose write committed with an answer no configured secrets key opens any more. */
  async function lostAnswer(method: string, target: string, body: string): Promise<string> {
    const key = randomUUID();
    await fixture.db.query(
      `insert into idempotency_record (id, tenant_id, api_key_id, key, fingerprint, answer_sealed, answer_key_fingerprint, created_at)
       values ($1, $2, (select id from api_key where key_hash = $3), $4, $5, '\\x00', '', now())`,
      [randomUUID(), ACME, hashApiKey(fixture.keys.writer), key, fingerprintOf(method, target, Buffer.from(body))]);
    return key;
  }

  it('declares each write with its body (an example that validates), success headers, and a JSON body for every error', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    const schemas = JSON.parse(JSON.stringify(conformance.spec.components.schemas).replaceAll('"#/components/schemas/', '"#/$defs/'));
    for (const [method, template] of WRITES) {
      const declared = operation(method, template);
      expect(declared.security, `${method} ${template}`).toEqual([{ APIKeyHeader: [] }, { BearerKey: [] }]);
      const body = declared.requestBody?.content?.['application/json'];
      if (body) {
        const name = body.schema.$ref.split('/').at(-1);
        const validate = ajv.compile({ $ref: `#/$defs/${name}`, $defs: schemas });
        expect(validate(body.example), `${method} ${template} example: ${ajv.errorsText(validate.errors)}`).toBe(true);
      }
      for (const [status, response] of Object.entries<any>(declared.responses)) {
        if (Number(status) >= 400) expect(response.content?.['application/json']?.schema, `${method} ${template} ${status}`).toBeDefined();
      }
    }
    expect(Object.keys(operation('post', DEPLOYMENTS).responses[201].headers)).toEqual(['ETag', 'Location', 'Idempotent-Replayed']);
    expect(Object.keys(operation('patch', DEPLOYMENT).responses[200].headers)).toEqual(['ETag', 'Idempotent-Replayed']);
    expect(Object.keys(operation('post', REDEPLOY).responses[200].headers)).toEqual(['ETag']);
    for (const [method, template] of [['patch', DEPLOYMENT], ['delete', DEPLOYMENT], ['post', REDEPLOY]] as const) {
      expect(Object.keys(operation(method, template).responses[412].headers), `${method} ${template}`).toEqual(['ETag']);
    }
  });

  it('POST /v2/deployments: the example body, and every refusal', async () => {
    const example = JSON.stringify(operation('post', DEPLOYMENTS).requestBody.content['application/json'].example);
    const base = { method: 'post', template: DEPLOYMENTS, path: DEPLOYMENTS } as const;
    const created = await send({ ...base, body: example, headers: { 'idempotency-key': 'example' }, status: 201 });
    expect(created.headers.get('location')).toBe(`${DEPLOYMENTS}/${created.body.id}`);
    expect(created.body.latest_revision_id).toEqual(expect.any(String));
    const replayed = await send({ ...base, body: example, headers: { 'idempotency-key': 'example' }, status: 201 });
    expect({ body: replayed.body, replayed: replayed.headers.get('idempotent-replayed') }).toEqual({ body: created.body, replayed: 'true' });
    await send({ ...base, body: example, status: 409 });
    await send({ ...base, body: create('BAD_NAME'), status: 422 });
    await send({ ...base, body: '{"name":', status: 422 });
    await send({ ...base, body: create('other'), headers: { 'idempotency-key': 'example' }, status: 422 });
    await send({ ...base, body: Buffer.from([0xff, 0xfe, 0x7b]), status: 400 });
    await send({ ...base, body: create('bad-key'), headers: { 'idempotency-key': 'a b' }, status: 400 });
    await send({ ...base, body: create('no-key'), headers: { 'x-api-key': '' }, status: 401 });
    await send({ ...base, body: create('reader'), headers: { 'x-api-key': fixture.keys.reader }, status: 403 });
    const running = await runningKey();
    try {
      await send({ ...base, body: create('running'), headers: { 'idempotency-key': running.key }, status: 409 });
    } finally {
      await running.release();
    }
  });

  it('PATCH /v2/deployments/{deployment_id}: the example body, with If-Match and without, and every refusal', async () => {
    const example = JSON.stringify(operation('patch', DEPLOYMENT).requestBody.content['application/json'].example);
    const id = (await send({ method: 'post', template: DEPLOYMENTS, path: DEPLOYMENTS, body: create('to-patch'), status: 201 })).body.id;
    const base = { method: 'patch', template: DEPLOYMENT, path: `${DEPLOYMENTS}/${id}` } as const;
    const first = await send({ ...base, body: example, status: 200 });
    expect(first.body.source_revision_config.image_uri).toBe(JSON.parse(example).source_revision_config.image_uri);
    // A change (a PATCH that changes nothing keeps the version, and the tag below would still hold).
    const masked = await send({ ...base, body: '{"secrets":[{"name":"A","value":"a2"}]}', headers: { 'x-api-key': fixture.keys.masked, 'if-match': first.headers.get('etag')! }, status: 200 });
    expect({ etag: masked.headers.get('etag'), value: masked.body.secrets[0].value }).toEqual({ etag: expect.stringMatching(/^"\d+-masked-[0-9a-f]{24}"$/), value: '********' });
    await send({ ...base, body: '{}', headers: { 'if-match': first.headers.get('etag')! }, status: 412 });
    await send({ ...base, body: '{"source_config":{"deployment_type":"prod"}}', status: 422 });
    await send({ ...base, path: `${DEPLOYMENTS}/nope`, body: '{}', status: 422 });
    await send({ ...base, path: `${DEPLOYMENTS}/${UNKNOWN}`, body: '{}', status: 404 });
    await send({ ...base, path: `${DEPLOYMENTS}/${GLOBEX_DEPLOYMENT}`, body: '{}', status: 404 });
    await send({ ...base, body: Buffer.from([0xc3, 0x28]), status: 400 });
    await send({ ...base, body: '{}', headers: { 'idempotency-key': '' }, status: 400 });
    await send({ ...base, body: '{}', headers: { 'x-api-key': 'dmk_unknown' }, status: 401 });
    await send({ ...base, body: '{}', headers: { 'x-api-key': fixture.keys.reader }, status: 403 });
    const lost = await lostAnswer('PATCH', base.path, '{}');
    const answer = await send({ ...base, body: '{}', headers: { 'idempotency-key': lost }, status: 409 });
    expect(answer.body.detail).toMatch(/its answer can no longer be read; read the resource/);
  });

  it('DELETE /v2/deployments/{deployment_id}: 204 (delete_tracing_project accepted), then 404, and every refusal', async () => {
    const created = await send({ method: 'post', template: DEPLOYMENTS, path: DEPLOYMENTS, body: create('to-delete'), status: 201 });
    const base = { method: 'delete', template: DEPLOYMENT, path: `${DEPLOYMENTS}/${created.body.id}` } as const;
    await send({ ...base, headers: { 'if-match': '"0"' }, status: 412 });
    await send({ ...base, path: `${base.path}?delete_tracing_project=maybe`, status: 422 });
    await send({ ...base, headers: { 'x-api-key': fixture.keys.reader }, status: 403 });
    await send({ ...base, headers: { 'x-api-key': '' }, status: 401 });
    await send({ ...base, path: `${base.path}?delete_tracing_project=true`, headers: { 'if-match': created.headers.get('etag')! }, status: 204 });
    await send({ ...base, status: 404 });
  });

  it('DELETE /v2/deployments?deployment_ids=…: 200, 207, 404, and every refusal', async () => {
    const ids = [];
    for (const name of ['bulk-a', 'bulk-b', 'bulk-c']) ids.push((await send({ method: 'post', template: DEPLOYMENTS, path: DEPLOYMENTS, body: create(name), status: 201 })).body.id);
    const base = { method: 'delete', template: DEPLOYMENTS } as const;
    const query = (...list: string[]) => `${DEPLOYMENTS}?${list.map((id) => `deployment_ids=${id}`).join('&')}`;
    const all = await send({ ...base, path: query(ids[0], ids[1], ids[0]), status: 200 });
    expect(all.body).toEqual({ deleted_ids: [ids[0], ids[1]], failed: [] });
    const some = await send({ ...base, path: query(ids[2], UNKNOWN), status: 207 });
    expect(some.body).toEqual({ deleted_ids: [ids[2]], failed: [{ deployment_id: UNKNOWN, status: 404, detail: `Deployment ID ${UNKNOWN} not found.` }] });
    await send({ ...base, path: query(ids[2], GLOBEX_DEPLOYMENT), status: 404 });
    await send({ ...base, path: DEPLOYMENTS, status: 422 });
    await send({ ...base, path: query(`${ids[0]},${ids[1]}`), status: 422 });
    await send({ ...base, path: query(...Array.from({ length: 101 }, () => UNKNOWN)), status: 422 });
    await send({ ...base, path: query(UNKNOWN), headers: { 'x-api-key': fixture.keys.reader }, status: 403 });
    await send({ ...base, path: query(UNKNOWN), headers: { 'x-api-key': '' }, status: 401 });
  });

  it('POST …/revisions/{revision_id}/redeploy: a new revision, and every refusal', async () => {
    const base = { method: 'post', template: REDEPLOY, path: `${DEPLOYMENTS}/${ACME_DEPLOYMENT}/revisions/${CHECKOUT_REVISION}/redeploy` } as const;
    const redeployed = await send({ ...base, status: 200 });
    expect(redeployed.body.latest_revision_id).not.toBe(CHECKOUT_REVISION);
    await send({ ...base, headers: { 'if-match': '"1"' }, status: 412 });
    await send({ ...base, path: `${DEPLOYMENTS}/${ACME_DEPLOYMENT}/revisions/${UNKNOWN}/redeploy`, status: 404 });
    await send({ ...base, path: `${DEPLOYMENTS}/${UNKNOWN}/revisions/${CHECKOUT_REVISION}/redeploy`, status: 404 });
    await send({ ...base, path: `${DEPLOYMENTS}/${ACME_DEPLOYMENT}/revisions/nope/redeploy`, status: 422 });
    await send({ ...base, headers: { 'x-api-key': fixture.keys.reader }, status: 403 });
    await send({ ...base, headers: { 'x-api-key': '' }, status: 401 });
  });

  it('POST …/push-token: 200 with a registry, 501 without (400 off internal_docker), and every refusal; …/upload-url: 200 (400 off the internal sources), and every refusal', async () => {
    const docker = (await send({ method: 'post', template: DEPLOYMENTS, path: DEPLOYMENTS, body: create('helpers'), status: 201 })).body.id;
    const issued = await send({ method: 'post', template: PUSH_TOKEN, path: PUSH_TOKEN.replace('{deployment_id}', docker), status: 200, app: withRegistry.url });
    expect(issued.body.registry_url).toBe(`registry.invalid:5000/deployments/${ACME}/${docker}`);
    for (const [template, status] of [[PUSH_TOKEN, 501], [UPLOAD_URL, 200]] as const) {
      const path = (id: string) => template.replace('{deployment_id}', id);
      await send({ method: 'post', template, path: path(docker), status });
      await send({ method: 'post', template, path: path(UNKNOWN), status: 404 });
      await send({ method: 'post', template, path: path('nope'), status: 422 });
      await send({ method: 'post', template, path: path(docker), headers: { 'x-api-key': fixture.keys.reader }, status: 403 });
      await send({ method: 'post', template, path: path(docker), headers: { 'x-api-key': '' }, status: 401 });
    }
    const refused = await send({ method: 'post', template: PUSH_TOKEN, path: PUSH_TOKEN.replace('{deployment_id}', ACME_DEPLOYMENT), status: 400 });
    expect(refused.body.detail).toContain('only available for \'internal_docker\' source deployments');
    const noUploads = await send({ method: 'post', template: UPLOAD_URL, path: UPLOAD_URL.replace('{deployment_id}', ACME_DEPLOYMENT), status: 400 });
    expect(noUploads.body.detail).toBe('Upload URLs are only available for \'internal_source\' and \'internal_docker\' source deployments.');
  });

  it('has produced every answer the document declares for the writes, but 500', () => {
    const declared = WRITES.flatMap(([method, template]) => Object.keys(operation(method, template).responses)
      .filter((status) => status !== '500').map((status) => `${method} ${template} ${status}`));
    expect([...seen].sort()).toEqual(declared.sort());
  });
});
