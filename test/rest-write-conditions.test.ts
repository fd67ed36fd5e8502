// What decides whether a REST write happens at all, as a legacy client sees it: FastAPI/pydantic v2's 422 for a
// body the original's models refuse (shared/spec/original-write-side.md §3, §3.12), a key that may not write
// (403 on every write route), If-Match (RFC 9110 §13.1.1: strong comparison, `*`, lists; 412 when stale) and
// Idempotency-Key (the IETF httpapi draft: a retry gets the first answer, another body under the key is refused,
// keys are per tenant). Expected bodies are written from those sources, not from our output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_ROUTES } from '../src/rest/routes.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME, ACME_DEPLOYMENT, GLOBEX } from './support/fixtures.ts';
import {
  READ_ONLY, UNKNOWN_ID, deploymentNotFound, detail, expectJsonText, pydantic, restCaller, type Answer,
} from './support/write-calls.ts';

const CHECKOUT_DEPLOYED = '66666666-6666-4666-8666-666666666661';
const SOURCES = "'github', 'external_docker', 'internal_docker' or 'internal_source'";
const IMAGE = 'registry.example.com/acme/agent@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

let fixture: FixtureApp<'writer' | 'writerSecrets' | 'reader' | 'globexWriter'>;
beforeAll(async () => {
  fixture = await startFixtureApp([], {
    writer: { tenants: [ACME], mayWrite: true }, writerSecrets: { tenants: [ACME], mayWrite: true, mayReadSecrets: true },
    reader: { tenants: [ACME], mayReadSecrets: true }, globexWriter: { tenants: [GLOBEX], mayWrite: true },
  });
});
afterAll(() => fixture?.close());

const call = restCaller(() => fixture.app.url, () => fixture.keys.writer);
const cliCreate = (name: string) => ({ name, source: 'internal_docker', source_config: { deployment_type: 'dev' }, source_revision_config: {}, secrets: [] });
async function create(name: string, key = fixture.keys.writer) {
  const answer = await call('POST', '/v2/deployments', { key, body: cliCreate(name) });
  expect(answer.status, answer.text).toBe(201);
  return answer;
}
const deploymentCount = async () => Number((await fixture.db.query<{ n: number }>('select count(*)::int as n from deployment'))[0]!.n);
const revisionCount = async (id: string) => Number((await fixture.db.query<{ n: number }>('select count(*)::int as n from revision where deployment_id = $1', [id]))[0]!.n);

describe('bodies the original\'s models refuse: 422 as FastAPI answers', () => {
  it('names every missing field of a create, each with the body as input; nothing is created', async () => {
    const before = await deploymentCount();
    expectJsonText(await call('POST', '/v2/deployments', { body: {} }), 422, {
      detail: ['name', 'source', 'source_config', 'source_revision_config', 'secrets'].map((field) => pydantic('missing', ['body', field], 'Field required', {})),
    });
    expect(await deploymentCount()).toBe(before);
  });

  it('lists wrong types, literal values, UUIDs and resource ranges together, in the models\' field order', async () => {
    const body = {
      name: 5, source: 'nope',
      source_config: { integration_id: 'not-a-uuid', deployment_type: 'huge', resource_spec: { cpu: 9, cpu_limit: 0.05, queue_cpu: 8.5, redis_cpu_limit: 16.5 } },
      source_revision_config: [], secrets: [{ name: 'A' }],
    };
    const spec = ['body', 'source_config', 'resource_spec'];
    expectJsonText(await call('POST', '/v2/deployments', { body }), 422, {
      detail: [
        pydantic('string_type', ['body', 'name'], 'Input should be a valid string', 5),
        pydantic('literal_error', ['body', 'source'], `Input should be ${SOURCES}`, 'nope', { expected: SOURCES }),
        pydantic('uuid_parsing', ['body', 'source_config', 'integration_id'], 'Input should be a valid UUID, invalid character: found `n` at 1', 'not-a-uuid', { error: 'invalid character: found `n` at 1' }),
        pydantic('literal_error', ['body', 'source_config', 'deployment_type'], "Input should be 'dev_free', 'dev' or 'prod'", 'huge', { expected: "'dev_free', 'dev' or 'prod'" }),
        pydantic('less_than_equal', [...spec, 'cpu'], 'Input should be less than or equal to 8', 9, { le: 8 }),
        pydantic('greater_than_equal', [...spec, 'cpu_limit'], 'Input should be greater than or equal to 0.1', 0.05, { ge: 0.1 }),
        pydantic('less_than_equal', [...spec, 'queue_cpu'], 'Input should be less than or equal to 8', 8.5, { le: 8 }),
        pydantic('less_than_equal', [...spec, 'redis_cpu_limit'], 'Input should be less than or equal to 16', 16.5, { le: 16 }),
        pydantic('model_attributes_type', ['body', 'source_revision_config'], 'Input should be a valid dictionary or object to extract fields from', []),
        pydantic('missing', ['body', 'secrets', 0, 'value'], 'Field required', { name: 'A' }),
      ],
    });
  });

  it('answers a body that is no JSON with json_invalid, and no body with missing', async () => {
    const jsonInvalid = (position: number, error: string) => ({ detail: [pydantic('json_invalid', ['body', position], 'JSON decode error', {}, { error })] });
    expectJsonText(await call('POST', '/v2/deployments', { body: '{bad' }), 422, jsonInvalid(1, 'Expecting property name enclosed in double quotes'));
    expectJsonText(await call('PATCH', `/v2/deployments/${ACME_DEPLOYMENT}`, { body: '[1,' }), 422, jsonInvalid(3, 'Expecting value'));
    expectJsonText(await call('POST', '/v2/deployments'), 422, { detail: [pydantic('missing', ['body'], 'Field required', null)] });
  });

  it('refuses external_docker as a PATCH revision_source (not in that enum)', async () => {
    const expected = "'github', 'internal_docker' or 'internal_source'";
    expectJsonText(await call('PATCH', `/v2/deployments/${ACME_DEPLOYMENT}`, { body: { revision_source: 'external_docker' } }), 422, {
      detail: [pydantic('literal_error', ['body', 'revision_source'], `Input should be ${expected}`, 'external_docker', { expected })],
    });
  });

  it('ignores keys the models do not know (the CLI sends tracked_packages): accepted, not stored', async () => {
    const created = await call('POST', '/v2/deployments', { body: { ...cliCreate('unknown-keys'), tracked_packages: ['google-adk:1.2.3'], source_config: { deployment_type: 'dev', colour: 'red' } } });
    expect(created.status, created.text).toBe(201);
    expect(created.text).not.toMatch(/tracked_packages|colour/);
    const patched = await call('PATCH', `/v2/deployments/${created.json.id}`, { body: { tracked_packages: ['google-adk:unknown'] } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.latest_revision_id).toBeNull();
  });
});

describe('text and JSON the database cannot hold: 422 naming the value, never a 5xx (issue 50)', () => {
  const NUL = 'must not contain NUL characters';
  const SURROGATE = 'must not contain unpaired surrogates (U+D800 to U+DFFF)';
  const refused = (loc: (string | number)[], input: unknown, error: string) => ({ detail: [pydantic('value_error', ['body', ...loc], `Value error, ${error}`, input, { error })] });
  const external = (extra: Record<string, unknown>) => ({ name: 'unstorable', source: 'external_docker', source_config: {}, source_revision_config: {}, secrets: [], ...extra });
  const nested = (levels: number) => JSON.parse(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`);

  it.each([
    ['a secret\'s name (was 503, "the database cannot be reached")', { secrets: [{ name: 'API\u0000TOKEN', value: 'x' }] }, ['secrets', 0, 'name'], 'API\u0000TOKEN', NUL],
    ['a secret reference (was 503)', { secret_references: [{ name: 'R', secret_name: 'mail\u0000', secret_key: 'k' }] }, ['secret_references', 0, 'secret_name'], 'mail\u0000', NUL],
    ['image_uri (was 500)', { source_revision_config: { image_uri: 'nginx\u0000' } }, ['source_revision_config', 'image_uri'], 'nginx\u0000', NUL],
    ['install_command (was 500)', { source_config: { install_command: 'npm ci\u0000' } }, ['source_config', 'install_command'], 'npm ci\u0000', NUL],
    ['custom_url (was 500)', { source_config: { custom_url: 'https://a\u0000.example' } }, ['source_config', 'custom_url'], 'https://a\u0000.example', NUL],
    ['a label (was 500)', { source_config: { resource_spec: { labels: { team: 'a\u0000' } } } }, ['source_config', 'resource_spec', 'labels', 'team'], 'a\u0000', NUL],
    ['a volume (was 500)', { source_config: { resource_spec: { volumes: [{ name: 'v', configMap: { name: 'c\u0000' } }] } } }, ['source_config', 'resource_spec', 'volumes', 0, 'configMap', 'name'], 'c\u0000', NUL],
    ['an unpaired surrogate in a secret\'s name (was stored as U+FFFD, its value then unreadable)', { secrets: [{ name: 'KEY\ud800', value: 'x' }] }, ['secrets', 0, 'name'], 'KEY\ud800', SURROGATE],
    ['an unpaired surrogate in a label (was 500)', { source_config: { resource_spec: { labels: { team: '\udc00' } } } }, ['source_config', 'resource_spec', 'labels', 'team'], '\udc00', SURROGATE],
  ])('%s', async (_name, extra, loc, input, error) => {
    const before = await deploymentCount();
    const answer = await call('POST', '/v2/deployments', { body: external(extra) });
    expect(answer.headers.get('retry-after')).toBeNull();
    expectJsonText(answer, 422, refused(loc, input, error));
    expect(await deploymentCount()).toBe(before);
    expectJsonText(await call('PATCH', `/v2/deployments/${ACME_DEPLOYMENT}`, { body: extra }), 422, refused(loc, input, error));
  });

  it('a free-form value nested 4,500 levels deep (was 500, "Maximum call stack size exceeded"), or 4,000 (was stored)', async () => {
    for (const levels of [4500, 4000, 33]) {
      const body = external({ source_config: { resource_spec: { volumes: [{ name: 'v', configMap: nested(levels) }] } } });
      expectJsonText(await call('POST', '/v2/deployments', { body }), 422,
        refused(['source_config', 'resource_spec', 'volumes', 0, 'configMap'], null, 'must not be nested more than 32 levels deep'));
    }
    const answer = await call('POST', '/v2/deployments', { body: external({ source_config: { resource_spec: { volumes: [{ name: 'v', configMap: nested(32) }] } } }) });
    expect(answer.status, answer.text.slice(0, 300)).toBe(201);
  });

  // The record is answered through GraphQL's types (an Int has 32 bits, a Float is finite), so a number beyond
  // them would be stored and then fail every answer showing it: refused in GraphQL's words, as it always was.
  it.each([
    ['an integer past 32 bits', { min_scale: 3_000_000_000 }, 'min_scale', 3_000_000_000, 'Int cannot represent non 32-bit signed integer value: 3000000000'],
    ['a negative one', { queue_memory_mb: -2_147_483_649 }, 'queue_memory_mb', -2_147_483_649, 'Int cannot represent non 32-bit signed integer value: -2147483649'],
    ['"inf" for a number (was 500)', { orchestrator_cpu: 'inf' }, 'orchestrator_cpu', null, 'Float cannot represent non numeric value: Infinity'],
  ])('a resource spec number the record cannot show: %s', async (_name, spec, field, input, error) => {
    const before = await deploymentCount();
    const loc = ['source_config', 'resource_spec', field];
    expectJsonText(await call('POST', '/v2/deployments', { body: external({ source_config: { resource_spec: spec } }) }), 422, refused(loc, input, error));
    expect(await deploymentCount()).toBe(before);
    expectJsonText(await call('PATCH', `/v2/deployments/${ACME_DEPLOYMENT}`, { body: { source_config: { resource_spec: spec } } }), 422, refused(loc, input, error));
    const largest = await call('POST', '/v2/deployments', { body: external({ name: 'largest-int', source_config: { resource_spec: { [field]: field === 'orchestrator_cpu' ? 1e300 : 2_147_483_647 * Math.sign(input ?? 1) } } }) });
    expect(largest.status, largest.text).toBe(201);
    await call('DELETE', `/v2/deployments/${largest.json.id}`);
  });

  it('a free-form value of more than 64 KiB as JSON', async () => {
    const body = external({ source_config: { resource_spec: { volumes: [{ name: 'v', configMap: { data: { big: 'x'.repeat(65_536) } } }] } } });
    expectJsonText(await call('POST', '/v2/deployments', { body }), 422,
      refused(['source_config', 'resource_spec', 'volumes', 0, 'configMap'], null, 'must not take more than 65536 bytes as JSON'));
  });
});

describe('a key that may not write', () => {
  const readOnly = () => fixture.keys.reader;
  it.each([
    ['POST', '/v2/deployments', cliCreate('read-only-attempt')],
    ['POST', '/v2/deployments', { name: 5 }],
    ['PATCH', `/v2/deployments/${ACME_DEPLOYMENT}`, { secrets: [] }],
    ['PATCH', `/v2/deployments/${UNKNOWN_ID}`, { secrets: 'x' }],
    ['DELETE', `/v2/deployments/${ACME_DEPLOYMENT}`, undefined],
    ['DELETE', `/v2/deployments?deployment_ids=${ACME_DEPLOYMENT}`, undefined],
    ['POST', `/v2/deployments/${ACME_DEPLOYMENT}/revisions/${CHECKOUT_DEPLOYED}/redeploy`, undefined],
  ])('%s %s: 403, before the body or the id is looked at; nothing changes', async (method, path, body) => {
    const before = await call('GET', `/v2/deployments/${ACME_DEPLOYMENT}`, { key: readOnly() });
    const count = await deploymentCount();
    expectJsonText(await call(method, path, { key: readOnly(), body }), 403, READ_ONLY);
    expect((await call('GET', `/v2/deployments/${ACME_DEPLOYMENT}`, { key: readOnly() })).text).toBe(before.text);
    expect(await deploymentCount()).toBe(count);
  });

  // Every route that writes, listed or not above: its handler does not check the permission again.
  it('403 on every route that writes but a data plane\'s, whatever the route table holds', async () => {
    const writes = REST_ROUTES.filter((route) => route.write && !route.dataPlane);
    expect(writes.length).toBeGreaterThanOrEqual(10);
    for (const route of writes) {
      const path = route.path.replace('{deployment_id}', ACME_DEPLOYMENT).replace('{revision_id}', CHECKOUT_DEPLOYED).replace('{listener_id}', UNKNOWN_ID);
      const query = route.parameters.some((parameter) => parameter.name === 'deployment_ids') ? `?deployment_ids=${ACME_DEPLOYMENT}` : '';
      const answer = await call(route.method!, path + query, { key: readOnly(), body: route.body ? {} : undefined });
      expect({ route: `${route.method} ${route.path}`, status: answer.status, json: answer.json }).toEqual({ route: `${route.method} ${route.path}`, status: 403, json: READ_ONLY });
    }
  });

  it('no key at all: 401 as on the read side', async () => {
    const answer = await fetch(`${fixture.app.url}/v2/deployments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(cliCreate('no-key')) });
    expect({ status: answer.status, body: await answer.text(), scheme: answer.headers.get('www-authenticate') })
      .toEqual({ status: 401, body: JSON.stringify(detail('Not authenticated')), scheme: 'APIKey' });
  });
});

describe('If-Match', () => {
  const etag = (answer: Answer) => answer.headers.get('etag')!;
  const versionOf = (tag: string) => /^"(\d+)(?:-masked)?-[0-9a-f]{24}"$/.exec(tag)![1];
  const changedBy = (id: string, ifMatch: string, body: unknown = { source_config: { install_command: 'make' } }) =>
    call('PATCH', `/v2/deployments/${id}`, { body, headers: { 'if-match': ifMatch } });

  it('lets a PATCH with the current ETag through (200, a new ETag); the old one is then stale: 412 with the current one', async () => {
    const created = await create('if-match-patch');
    const first = await changedBy(created.json.id, etag(created), { secrets: [] });
    expect(first.status, first.text).toBe(200);
    expect(etag(first)).not.toBe(etag(created));
    const before = await call('GET', `/v2/deployments/${created.json.id}`);
    const revisions = await revisionCount(created.json.id);
    const stale = await changedBy(created.json.id, etag(created), { secrets: [] });
    expectJsonText(stale, 412, detail(`Deployment ${created.json.id} has changed since the version you sent (If-Match); read it again and retry.`));
    expect(etag(stale)).toBe(etag(first));
    expect((await call('GET', `/v2/deployments/${created.json.id}`)).text).toBe(before.text);
    expect(await revisionCount(created.json.id)).toBe(revisions);
  });

  it('matches `*`, any tag of a list, and the same version with or without the masked suffix; never a weak tag', async () => {
    const created = await create('if-match-forms');
    const id = created.json.id;
    const star = await changedBy(id, '*');
    expect(star.status, star.text).toBe(200);
    const version = versionOf(etag(star));
    expectJsonText(await changedBy(id, `W/"${version}"`), 412, detail(`Deployment ${id} has changed since the version you sent (If-Match); read it again and retry.`));
    const listed = await changedBy(id, `"0", "${version}"`);
    expect(listed.status, listed.text).toBe(200);
    expect(etag(listed)).toMatch(new RegExp(`^"${versionOf(etag(listed))}-masked-[0-9a-f]{24}"$`));
    const unmasked = await call('PATCH', `/v2/deployments/${id}`, { key: fixture.keys.writerSecrets, body: {}, headers: { 'if-match': `"${versionOf(etag(listed))}"` } });
    expect(unmasked.status, unmasked.text).toBe(200);
    expect(etag(unmasked)).toMatch(/^"\d+-[0-9a-f]{24}"$/);
    // The tag before issue 52, a GET's and the masked one name the same version too.
    for (const tag of [`"${versionOf(etag(listed))}-masked"`, etag(await call('GET', `/v2/deployments/${id}`)), etag(listed)]) {
      expect((await changedBy(id, tag)).status, tag).toBe(200);
    }
  });

  it('tags a deployment\'s representation once, whichever answer carries it: a write\'s answer revalidates with GET, If-Match takes it', async () => {
    const created = await create('etag-on-read');
    const path = `/v2/deployments/${created.json.id}`;
    const read = await call('GET', path);
    // The create's answer and the GET are one representation: one tag, which a client keeping the create's
    // answer revalidates with (304).
    expect(read.text).toBe(created.text);
    expect(etag(read)).toBe(etag(created));
    expect(etag(read)).toMatch(/^"\d+-masked-[0-9a-f]{24}"$/);
    expect((await call('GET', path, { headers: { 'if-none-match': etag(created) } })).status).toBe(304);
    // Another deployment at the same version is another representation.
    expect(etag(await create('etag-on-read-too'))).not.toBe(etag(created));
    const patched = await changedBy(created.json.id, etag(read));
    expect(patched.status, patched.text).toBe(200);
    const reread = await call('GET', path, { headers: { 'if-none-match': etag(created) } });
    expect({ status: reread.status, etag: etag(reread), text: reread.text }).toEqual({ status: 200, etag: etag(patched), text: patched.text });
    expect((await call('GET', path, { headers: { 'if-none-match': etag(patched) } })).status).toBe(304);
    expect((await changedBy(created.json.id, etag(read))).status).toBe(412);
    // Another coding is other bytes, so another tag, the same whichever answer carries it.
    const [gzip, identity] = [{ 'accept-encoding': 'gzip' }, { 'accept-encoding': 'identity' }];
    const zipped = await call('GET', path, { headers: gzip });
    const plain = await call('GET', path, { headers: identity });
    expect(etag(zipped)).not.toBe(etag(plain));
    expect(etag(await call('PATCH', path, { body: {}, headers: gzip }))).toBe(etag(zipped));
    expect(etag(await call('PATCH', path, { body: {}, headers: identity }))).toBe(etag(plain));
    expect((await call('GET', path, { headers: { ...gzip, 'if-none-match': etag(zipped) } })).status).toBe(304);
    expect((await call('GET', path, { headers: { ...identity, 'if-none-match': etag(zipped) } })).status).toBe(200);
    // And another reader (a key that reveals secrets) another representation.
    const revealing = await call('GET', path, { key: fixture.keys.writerSecrets });
    expect(etag(revealing)).toMatch(new RegExp(`^"${versionOf(etag(patched))}-[0-9a-f]{24}"$`));
    expect(etag(await call('PATCH', path, { key: fixture.keys.writerSecrets, body: {} }))).toBe(etag(revealing));
  });

  it('holds DELETE and redeploy back when stale, lets them through when current', async () => {
    const created = await call('POST', '/v2/deployments', { body: { ...cliCreate('if-match-delete'), source_revision_config: { image_uri: IMAGE } } });
    const { id, latest_revision_id: revision } = created.json;
    const moved = await changedBy(id, etag(created));
    const staleMessage = detail(`Deployment ${id} has changed since the version you sent (If-Match); read it again and retry.`);
    expectJsonText(await call('POST', `/v2/deployments/${id}/revisions/${revision}/redeploy`, { headers: { 'if-match': etag(created) } }), 412, staleMessage);
    expect(await revisionCount(id)).toBe(1);
    const redeployed = await call('POST', `/v2/deployments/${id}/revisions/${revision}/redeploy`, { headers: { 'if-match': etag(moved) } });
    expect(redeployed.status, redeployed.text).toBe(200);
    expectJsonText(await call('DELETE', `/v2/deployments/${id}`, { headers: { 'if-match': etag(moved) } }), 412, staleMessage);
    expect((await call('GET', `/v2/deployments/${id}`)).status).toBe(200);
    expect((await call('DELETE', `/v2/deployments/${id}`, { headers: { 'if-match': etag(redeployed) } })).status).toBe(204);
    expectJsonText(await call('DELETE', `/v2/deployments/${id}`, { headers: { 'if-match': '*' } }), 404, deploymentNotFound(id));
  });
});

describe('Idempotency-Key', () => {
  const withKey = (idempotencyKey: string, body: unknown, key = fixture.keys.writer) =>
    call('POST', '/v2/deployments', { key, body, headers: { 'idempotency-key': idempotencyKey } });
  const headersOf = (answer: Answer) => ({ etag: answer.headers.get('etag'), location: answer.headers.get('location'), replayed: answer.headers.get('idempotent-replayed') });
  const named = async (name: string, key = fixture.keys.writer) => (await call('GET', `/v2/deployments?name_contains=${name}`, { key })).json.resources.length;

  it('answers a retried create with the first answer, marked replayed, and creates nothing more', async () => {
    const first = await withKey('create-once', cliCreate('idempotent-create'));
    expect(first.status, first.text).toBe(201);
    expect(headersOf(first).replayed).toBeNull();
    const again = await withKey('create-once', cliCreate('idempotent-create'));
    expect({ status: again.status, text: again.text, headers: headersOf(again) }).toEqual({ status: 201, text: first.text, headers: { ...headersOf(first), replayed: 'true' } });
    expect(again.type).toBe('application/json');
    expect(await named('idempotent-create')).toBe(1);
  });

  it('refuses the key with another body (422) and does not run it', async () => {
    await withKey('one-body', cliCreate('idempotent-first'));
    const problem = 'this Idempotency-Key was used with another request; use a new key for a new request';
    expectJsonText(await withKey('one-body', cliCreate('idempotent-second')), 422, {
      detail: [pydantic('value_error', ['header', 'Idempotency-Key'], `Value error, ${problem}`, 'one-body', { error: problem })],
    });
    expect(await named('idempotent-second')).toBe(0);
  });

  it('keeps keys per tenant: the same key and body in another tenant is a request of its own', async () => {
    const acme = await withKey('shared-key', cliCreate('idempotent-tenants'));
    const globex = await withKey('shared-key', cliCreate('idempotent-tenants'), fixture.keys.globexWriter);
    expect(globex.status, globex.text).toBe(201);
    expect(headersOf(globex).replayed).toBeNull();
    expect(globex.json.id).not.toBe(acme.json.id);
    expect(globex.json.tenant_id).toBe(GLOBEX);
    expect(await named('idempotent-tenants', fixture.keys.globexWriter)).toBe(1);
  });

  it('keeps keys per API key: another key of the tenant, sending the same request, is never replayed what the first key saw', async () => {
    const value = 'sk_live_replayed_to_nobody_7Hq';
    const created = await call('POST', '/v2/deployments', {
      key: fixture.keys.writerSecrets, body: { ...cliCreate('idempotent-keys'), secrets: [{ name: 'STRIPE', value }] },
    });
    expect(created.status, created.text).toBe(201);
    const patch = (key: string) => call('PATCH', `/v2/deployments/${created.json.id}`, { key, body: {}, headers: { 'idempotency-key': 'patch-by-two-keys' } });
    const revealing = await patch(fixture.keys.writerSecrets);
    expect(revealing.status, revealing.text).toBe(200);
    expect(revealing.text).toContain(value);

    // The attack: a key that may write but not read secrets sends the same method, path, body and key.
    const masked = await patch(fixture.keys.writer);
    expect(masked.status, masked.text).toBe(200);
    expect(headersOf(masked).replayed).toBeNull();
    expect(masked.text).not.toContain(value);
    expect(masked.json.secrets).toEqual([{ name: 'STRIPE', value: '********' }]);
    // ... also once the deployment is gone: its own request, answered 404, never the first key's answer.
    expect((await call('DELETE', `/v2/deployments/${created.json.id}`)).status).toBe(204);
    const afterDelete = await patch(fixture.keys.writer);
    expect(afterDelete.text).not.toContain(value);
    expect(afterDelete.status).toBe(200); // its own answer from before the delete, replayed
    expect(headersOf(afterDelete).replayed).toBe('true');
    // The first key still gets its own first answer.
    const again = await patch(fixture.keys.writerSecrets);
    expect({ status: again.status, text: again.text, replayed: headersOf(again).replayed }).toEqual({ status: 200, text: revealing.text, replayed: 'true' });
  });

  it('answers a retried PATCH with the first answer and makes one revision', async () => {
    const created = await create('idempotent-patch');
    const patch = () => call('PATCH', `/v2/deployments/${created.json.id}`, { body: { source_revision_config: { image_uri: IMAGE }, secrets: [] }, headers: { 'idempotency-key': 'patch-once' } });
    const first = await patch();
    expect(first.status, first.text).toBe(200);
    const again = await patch();
    expect({ status: again.status, text: again.text, headers: headersOf(again) }).toEqual({ status: 200, text: first.text, headers: { ...headersOf(first), replayed: 'true' } });
    expect(await revisionCount(created.json.id)).toBe(1);
  });
});
