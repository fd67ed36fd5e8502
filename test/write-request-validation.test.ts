// The request bodies of the deployment writes, read as the original's FastAPI/pydantic v2 service reads them
// (shared/spec/original-write-side.md §3.1-3.9 and §6). FastAPI validates json.loads' result with
// `validate_python(body, from_attributes=True)`: pydantic's lax Python mode, unknown keys ignored. Each
// expected outcome was written from the spec and pydantic's conversion table, and checked, while the tests
// were written, against pydantic 2.13 / pydantic-core 2.46 models declared as the spec describes. The tests
// themselves never run Python.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateCreateRequest, validatePatchRequest } from '../src/modules/deployments/writes/validate-write-request.ts';
import { jsonSchemaOf, writeRequestSchemas, DeploymentPatchRequest } from '../src/modules/deployments/writes/write-request-schema.ts';
import { dataPlaneRequestSchemas } from '../src/modules/revisions/lifecycle/data-plane-request-schema.ts';
import { DEPLOYMENT_STATUSES, REVISION_STATUSES } from '../src/modules/deployments/deployment-enums.ts';
import { inBody } from '../src/modules/common/pydantic-errors.ts';

type Loc = (string | number)[];
const SOURCES = "'github', 'external_docker', 'internal_docker' or 'internal_source'";
const error = (type: string, loc: Loc, msg: string, input: unknown, ctx?: object) => (ctx ? { type, loc, msg, input, ctx } : { type, loc, msg, input });
const missing = (loc: Loc, input: unknown) => error('missing', loc, 'Field required', input);
const stringType = (loc: Loc, input: unknown) => error('string_type', loc, 'Input should be a valid string', input);
const modelType = (loc: Loc, input: unknown) => error('model_attributes_type', loc, 'Input should be a valid dictionary or object to extract fields from', input);
const ge = (loc: Loc, input: unknown, bound: number) => error('greater_than_equal', loc, `Input should be greater than or equal to ${bound}`, input, { ge: bound });
const le = (loc: Loc, input: unknown, bound: number) => error('less_than_equal', loc, `Input should be less than or equal to ${bound}`, input, { le: bound });

/** The maker's CLI create body (§6.3), with an empty secret list. */
const cliCreate = () => ({ name: 'my-app', source: 'internal_docker', source_config: { deployment_type: 'dev' }, source_revision_config: {}, secrets: [] as unknown[] });
const withResourceSpec = (resourceSpec: Record<string, unknown>) => ({ ...cliCreate(), source_config: { resource_spec: resourceSpec } });
const SPEC: Loc = ['source_config', 'resource_spec'];
const errorsOf = (result: { ok: boolean; errors?: unknown }) => (result.ok ? 'valid' : result.errors);

describe('the bodies the maker\'s CLI sends', () => {
  it('accepts its create body as sent', () => {
    expect(validateCreateRequest(cliCreate())).toEqual({ ok: true, value: cliCreate() });
  });

  it('accepts the local-build PATCH and drops tracked_packages, which the schema does not know', () => {
    const body = { revision_source: 'internal_docker', source_revision_config: { image_uri: 'reg.example/acme/my-app@sha256:0f1e' }, tracked_packages: ['google-adk:1.2.0'], secrets: [{ name: 'API_TOKEN', value: 's3cret' }] };
    expect(validatePatchRequest(body)).toEqual({
      ok: true,
      value: { revision_source: 'internal_docker', source_revision_config: { image_uri: 'reg.example/acme/my-app@sha256:0f1e' }, secrets: [{ name: 'API_TOKEN', value: 's3cret' }] },
    });
  });

  it('accepts the remote-build PATCH with install and build commands', () => {
    const body = {
      revision_source: 'internal_source', source_revision_config: { source_tarball_path: 'uploads/abc.tar.gz', graph_config_path: 'agent/graph.json' },
      tracked_packages: ['google-adk:unknown'], source_config: { install_command: 'npm ci', build_command: 'npm run build' }, secrets: [],
    };
    const { tracked_packages: _, ...expected } = body;
    expect(validatePatchRequest(body)).toEqual({ ok: true, value: expected });
  });
});

describe('what a valid body becomes', () => {
  it('drops unknown keys at every level and keeps only the keys sent', () => {
    const body = { ...withResourceSpec({ cpu: 1, extra: 1, sidecars: [{ name: 'c', image: 'i', ports: [80], env: [{ name: 'A', from: 'x' }] }] }), future: true };
    body.source_revision_config = { repo_ref: 'main', repo_commit_sha: 'abc' } as never;
    expect(validateCreateRequest(body)).toEqual({
      ok: true,
      value: { ...cliCreate(), source_config: { resource_spec: { cpu: 1, sidecars: [{ name: 'c', image: 'i', env: [{ name: 'A' }] }] } }, source_revision_config: { repo_ref: 'main' } },
    });
  });

  it('reads numbers, booleans and UUIDs the lax way: integral floats, numeric strings, yes/no, any UUID form', () => {
    const body = { ...withResourceSpec({ min_scale: 2.0, max_scale: '3', memory_mb: ' 1_024 ', cpu: '0.5', cpu_limit: 1, redis_cpu: true, labels: { team: 'a' }, volume_mounts: [{ readOnly: 'yes' }] }) };
    body.source_config = { ...body.source_config, build_on_push: 0, integration_id: '6F9619FF8B86D011B42D00C04FC964FF' } as never;
    const result = validateCreateRequest(body);
    expect(result.ok && result.value.source_config).toEqual({
      integration_id: '6f9619ff-8b86-d011-b42d-00c04fc964ff', build_on_push: false,
      resource_spec: { min_scale: 2, max_scale: 3, cpu: 0.5, cpu_limit: 1, memory_mb: 1024, redis_cpu: 1, labels: { team: 'a' }, volume_mounts: [{ readOnly: true }] },
    });
  });

  it('keeps null where the field is nullable, so that "absent" and "null" stay apart on PATCH', () => {
    const body = { revision_source: null, source_config: { resource_spec: { cpu: null, labels: null, sidecars: null } }, source_revision_config: null, secrets: null, secret_references: null };
    expect(validatePatchRequest(body)).toEqual({ ok: true, value: body });
    expect(validatePatchRequest({})).toEqual({ ok: true, value: {} });
  });

  it('takes free-form objects (securityContext, valueFrom, volume sources) as they are', () => {
    const container = { name: 'c', image: 'i', securityContext: { runAsUser: 1000, capabilities: { drop: ['ALL'] } }, env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] };
    const result = validatePatchRequest({ source_config: { resource_spec: { init_containers: [container], volumes: [{ name: 'v', emptyDir: {}, csi: { driver: 'x' } }] } } });
    expect(result.ok && result.value.source_config?.resource_spec).toEqual({ init_containers: [container], volumes: [{ name: 'v', emptyDir: {}, csi: { driver: 'x' } }] });
  });
});

describe('missing and null', () => {
  it.each(['name', 'source', 'source_config', 'source_revision_config', 'secrets'])('a create body without %s is `missing`, input the whole body', (key) => {
    const body: Record<string, unknown> = cliCreate();
    delete body[key];
    expect(errorsOf(validateCreateRequest(body))).toEqual([missing([key], body)]);
  });

  it('secret_references may be left out of a create body', () => {
    expect(validateCreateRequest(cliCreate()).ok).toBe(true);
  });

  it('reports every missing field of an empty body, in the order of the schema', () => {
    expect(errorsOf(validateCreateRequest({}))).toEqual(['name', 'source', 'source_config', 'source_revision_config', 'secrets'].map((key) => missing([key], {})));
  });

  it('refuses null where the field is not nullable, with the error of its type', () => {
    const body = { name: null, source: null, source_config: null, source_revision_config: {}, secrets: null };
    expect(errorsOf(validateCreateRequest(body))).toEqual([
      stringType(['name'], null),
      error('literal_error', ['source'], `Input should be ${SOURCES}`, null, { expected: SOURCES }),
      modelType(['source_config'], null),
      error('list_type', ['secrets'], 'Input should be a valid list', null),
    ]);
  });

  it('a volume\'s name and a mount\'s path may be absent but not null; a container needs a name and an image', () => {
    const result = validatePatchRequest({ source_config: { resource_spec: { volumes: [{}, { name: null }], volume_mounts: [{ mountPath: null }], sidecars: [{}] } } });
    expect(errorsOf(result)).toEqual([
      stringType([...SPEC, 'volumes', 1, 'name'], null),
      stringType([...SPEC, 'volume_mounts', 0, 'mountPath'], null),
      missing([...SPEC, 'sidecars', 0, 'name'], {}),
      missing([...SPEC, 'sidecars', 0, 'image'], {}),
    ]);
  });
});

describe('wrong types and values', () => {
  const cases: Array<[string, Record<string, unknown>, unknown]> = [
    ['a number for a string', { service_account_name: 7 }, stringType([...SPEC, 'service_account_name'], 7)],
    ['a word for an integer', { min_scale: 'two' }, error('int_parsing', [...SPEC, 'min_scale'], 'Input should be a valid integer, unable to parse string as an integer', 'two')],
    ['a fraction for an integer', { memory_mb: 2.5 }, error('int_from_float', [...SPEC, 'memory_mb'], 'Input should be a valid integer, got a number with a fractional part', 2.5)],
    ['a fractional string for an integer', { memory_mb: '2.5' }, error('int_parsing', [...SPEC, 'memory_mb'], 'Input should be a valid integer, unable to parse string as an integer', '2.5')],
    ['a list for an integer', { max_scale: [1] }, error('int_type', [...SPEC, 'max_scale'], 'Input should be a valid integer', [1])],
    ['a word for a number', { db_cpu: 'lots' }, error('float_parsing', [...SPEC, 'db_cpu'], 'Input should be a valid number, unable to parse string as a number', 'lots')],
    ['an object for a number', { db_cpu: {} }, error('float_type', [...SPEC, 'db_cpu'], 'Input should be a valid number', {})],
    ['a list for a dict', { labels: ['a'] }, error('dict_type', [...SPEC, 'labels'], 'Input should be a valid dictionary', ['a'])],
    ['a number as a label value', { labels: { tier: 1 } }, stringType([...SPEC, 'labels', 'tier'], 1)],
    ['an object for a list', { sidecars: { name: 'c' } }, error('list_type', [...SPEC, 'sidecars'], 'Input should be a valid list', { name: 'c' })],
    ['a string for a nested model', { sidecars: ['c'] }, modelType([...SPEC, 'sidecars', 0], 'c')],
    ['a string for a free-form object', { init_containers: [{ name: 'c', image: 'i', securityContext: 'privileged' }] },
      error('dict_type', [...SPEC, 'init_containers', 0, 'securityContext'], 'Input should be a valid dictionary', 'privileged')],
  ];
  it.each(cases)('%s', (_, resourceSpec, expected) => {
    expect(errorsOf(validateCreateRequest(withResourceSpec(resourceSpec)))).toEqual([expected]);
  });

  it('a boolean is a boolean, 0/1 or a yes/no word', () => {
    const result = validatePatchRequest({ source_config: { build_on_push: 'maybe', resource_spec: { volume_mounts: [{ readOnly: 2 }, { readOnly: 0.5 }] } } });
    expect(errorsOf(result)).toEqual([
      error('bool_parsing', ['source_config', 'build_on_push'], 'Input should be a valid boolean, unable to interpret input', 'maybe'),
      error('bool_parsing', [...SPEC, 'volume_mounts', 0, 'readOnly'], 'Input should be a valid boolean, unable to interpret input', 2),
      error('bool_type', [...SPEC, 'volume_mounts', 1, 'readOnly'], 'Input should be a valid boolean', 0.5),
    ]);
  });

  it('a source must be one of the four, spelled exactly', () => {
    expect(errorsOf(validateCreateRequest({ ...cliCreate(), source: 'GITHUB' }))).toEqual([
      error('literal_error', ['source'], `Input should be ${SOURCES}`, 'GITHUB', { expected: SOURCES }),
    ]);
  });

  it('a revision source cannot be external_docker; a deployment type is dev_free, dev or prod', () => {
    const revisionSources = "'github', 'internal_docker' or 'internal_source'";
    const types = "'dev_free', 'dev' or 'prod'";
    expect(errorsOf(validatePatchRequest({ revision_source: 'external_docker', source_config: { deployment_type: 'staging' } }))).toEqual([
      error('literal_error', ['revision_source'], `Input should be ${revisionSources}`, 'external_docker', { expected: revisionSources }),
      error('literal_error', ['source_config', 'deployment_type'], `Input should be ${types}`, 'staging', { expected: types }),
    ]);
  });

  it('an integration or listener id must be a UUID string', () => {
    const result = validatePatchRequest({ source_config: { integration_id: 'not-a-uuid', listener_id: 42 } });
    expect(errorsOf(result)).toEqual([
      error('uuid_parsing', ['source_config', 'integration_id'], 'Input should be a valid UUID, invalid character: found `n` at 1', 'not-a-uuid', { error: 'invalid character: found `n` at 1' }),
      error('uuid_type', ['source_config', 'listener_id'], 'UUID input should be a string, bytes or UUID object', 42),
    ]);
  });
});

describe('resource ranges', () => {
  it.each([
    ['cpu', 0.05, ge([...SPEC, 'cpu'], 0.05, 0.1)],
    ['cpu', 8.5, le([...SPEC, 'cpu'], 8.5, 8)],
    ['cpu', '0.05', ge([...SPEC, 'cpu'], '0.05', 0.1)],
    ['cpu_limit', 16.1, le([...SPEC, 'cpu_limit'], 16.1, 16)],
    ['queue_cpu', 0, ge([...SPEC, 'queue_cpu'], 0, 0.1)],
    ['queue_cpu_limit', 17, le([...SPEC, 'queue_cpu_limit'], 17, 16)],
    ['redis_cpu', 9, le([...SPEC, 'redis_cpu'], 9, 8)],
    ['redis_cpu_limit', 0.01, ge([...SPEC, 'redis_cpu_limit'], 0.01, 0.1)],
  ])('%s = %j is out of range', (field, value, expected) => {
    expect(errorsOf(validateCreateRequest(withResourceSpec({ [field]: value })))).toEqual([expected]);
  });

  it('accepts the bounds themselves; the database and orchestrator cpus have no range', () => {
    const spec = { cpu: 0.1, cpu_limit: 16, queue_cpu: 8, queue_cpu_limit: 0.1, redis_cpu: 8, redis_cpu_limit: 16, db_cpu: 64, orchestrator_cpu: 0.01 };
    expect(validateCreateRequest(withResourceSpec(spec))).toEqual({ ok: true, value: withResourceSpec(spec) });
  });
});

describe('several errors at once', () => {
  it('reports every error of a body in one answer, fields in schema order, list items by index', () => {
    const body = {
      name: 5, source: 'internal_docker', source_config: { deployment_type: 'dev', resource_spec: { cpu: 0.05, cpu_limit: 16.1, init_containers: [{ name: 'init', image: 'busybox', env: [{ name: 'A' }, { value: 'v' }] }] } },
      source_revision_config: [], secrets: [{ name: 'A' }, 'B=c', { name: 1, value: 'v' }], secret_references: [{ name: 'X', secret_name: 's' }],
    };
    expect(errorsOf(validateCreateRequest(body))).toEqual([
      stringType(['name'], 5),
      ge([...SPEC, 'cpu'], 0.05, 0.1),
      le([...SPEC, 'cpu_limit'], 16.1, 16),
      missing([...SPEC, 'init_containers', 0, 'env', 1, 'name'], { value: 'v' }),
      modelType(['source_revision_config'], []),
      missing(['secrets', 0, 'value'], { name: 'A' }),
      modelType(['secrets', 1], 'B=c'),
      stringType(['secrets', 2, 'name'], 1),
      missing(['secret_references', 0, 'secret_key'], { name: 'X', secret_name: 's' }),
    ]);
  });

  it('a body that is not an object is one model_attributes_type at the body itself; the REST door puts it under body', () => {
    for (const body of [[], 'x', 3, true]) {
      const result = validatePatchRequest(body);
      expect(errorsOf(result)).toEqual([modelType([], body)]);
      expect(inBody(result.ok ? [] : result.errors)).toEqual([modelType(['body'], body)]);
    }
  });
});

describe('text and JSON the database can hold (docs/decisions.md#text-and-json-the-database-can-hold)', () => {
  const NUL = 'must not contain NUL characters';
  const SURROGATE = 'must not contain unpaired surrogates (U+D800 to U+DFFF)';
  const valueError = (loc: Loc, input: unknown, problem: string) => error('value_error', loc, `Value error, ${problem}`, input, { error: problem });
  /** `levels` objects inside one another, the innermost holding `leaf`. */
  const nested = (levels: number, leaf: unknown = 'x'): Record<string, unknown> => {
    let value = { key: leaf } as Record<string, unknown>;
    for (let level = 1; level < levels; level++) value = { key: value };
    return value;
  };

  it('refuses a NUL character or an unpaired surrogate in every string a body takes, each at its place', () => {
    const body = {
      name: 'a\u0000', source: 'external_docker',
      source_config: {
        custom_url: 'https://x\u0000.example', install_command: 'npm ci\u0000', listener_config: { k8s_namespace: 'ns\ud800' },
        resource_spec: {
          labels: { team: 'a\udc00b' }, service_account_name: '\u0000', image_pull_secrets: [{ name: 'r\u0000' }],
          volumes: [{ name: 'v\u0000', configMap: { name: 'cm', items: [{ key: 'k', path: 'p\u0000' }] } }],
          sidecars: [{ name: 'c', image: 'i\u0000', command: ['sh', '-c\ud83d'], env: [{ name: 'A', value: '\u0000' }] }],
        },
      },
      source_revision_config: { image_uri: 'nginx\u0000' },
      secrets: [{ name: 'API_\u0000TOKEN', value: 'x' }, { name: 'B', value: 's3cret\u0000' }],
      secret_references: [{ name: 'R', secret_name: 'mail\ud800', secret_key: 'k' }],
    };
    expect(errorsOf(validateCreateRequest(body))).toEqual([
      valueError(['name'], 'a\u0000', NUL),
      valueError(['source_config', 'custom_url'], 'https://x\u0000.example', NUL),
      valueError([...SPEC, 'labels', 'team'], 'a\udc00b', SURROGATE),
      valueError([...SPEC, 'service_account_name'], '\u0000', NUL),
      valueError([...SPEC, 'image_pull_secrets', 0, 'name'], 'r\u0000', NUL),
      valueError([...SPEC, 'volumes', 0, 'name'], 'v\u0000', NUL),
      valueError([...SPEC, 'volumes', 0, 'configMap', 'items', 0, 'path'], 'p\u0000', NUL),
      valueError([...SPEC, 'sidecars', 0, 'image'], 'i\u0000', NUL),
      valueError([...SPEC, 'sidecars', 0, 'command', 1], '-c\ud83d', SURROGATE),
      valueError([...SPEC, 'sidecars', 0, 'env', 0, 'value'], '\u0000', NUL),
      valueError(['source_config', 'listener_config', 'k8s_namespace'], 'ns\ud800', SURROGATE),
      valueError(['source_config', 'install_command'], 'npm ci\u0000', NUL),
      valueError(['source_revision_config', 'image_uri'], 'nginx\u0000', NUL),
      valueError(['secrets', 0, 'name'], 'API_\u0000TOKEN', NUL),
      valueError(['secrets', 1, 'value'], 's3cret\u0000', NUL),
      valueError(['secret_references', 0, 'secret_name'], 'mail\ud800', SURROGATE),
    ]);
  });

  it('refuses such a key of a string map or a free-form object at `[key]` after it, as pydantic places key errors', () => {
    const spec = { labels: { 'te\u0000am': 'a' }, volumes: [{ csi: { driver: 'd', volumeAttributes: { '\udfff': 'x' } } }] };
    expect(errorsOf(validatePatchRequest({ source_config: { resource_spec: spec } }))).toEqual([
      valueError([...SPEC, 'labels', 'te\u0000am', '[key]'], 'te\u0000am', NUL),
      valueError([...SPEC, 'volumes', 0, 'csi', 'volumeAttributes', '\udfff', '[key]'], '\udfff', SURROGATE),
    ]);
  });

  it('takes any other character: other controls, a paired surrogate (an emoji), U+FFFF, U+2028', () => {
    const text = 'a\u0001\u001f\ud83d\ude00\uffff\u2028\u00e9';
    const body = { ...cliCreate(), secrets: [{ name: text, value: text }], source_config: { resource_spec: { labels: { [text]: text }, volumes: [{ secret: { [text]: [text] } }] } } };
    expect(validateCreateRequest(body)).toEqual({ ok: true, value: body });
  });

  it('takes a free-form object nested 32 levels deep, refuses one of 33 with one problem at the field, input not echoed', () => {
    const volume = (configMap: unknown) => ({ source_config: { resource_spec: { volumes: [{ name: 'v', configMap }] } } });
    expect(validatePatchRequest(volume(nested(32))).ok).toBe(true);
    expect(errorsOf(validatePatchRequest(volume(nested(33))))).toEqual([
      valueError([...SPEC, 'volumes', 0, 'configMap'], null, 'must not be nested more than 32 levels deep'),
    ]);
    // Lists count as levels too; what lies deeper (a NUL here) is not looked at.
    const lists = { key: JSON.parse(`${'['.repeat(32)}"\\u0000"${']'.repeat(32)}`) };
    expect(errorsOf(validatePatchRequest(volume(lists)))).toEqual([
      valueError([...SPEC, 'volumes', 0, 'configMap'], null, 'must not be nested more than 32 levels deep'),
    ]);
  });

  it('refuses a free-form object nested 100,000 levels deep (inside the body limit as JSON) without overflowing the stack', () => {
    const deep = JSON.parse(`{"securityContext":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`);
    const body = { source_config: { resource_spec: { sidecars: [{ name: 'c', image: 'i', ...deep }] } } };
    expect(errorsOf(validatePatchRequest(body))).toEqual([
      valueError([...SPEC, 'sidecars', 0, 'securityContext'], null, 'must not be nested more than 32 levels deep'),
    ]);
  });

  it('takes a free-form object of 65,536 bytes as JSON (UTF-8), refuses one of 65,537 at the field', () => {
    // {"data":"…"} is 11 bytes besides the text; é is two bytes of UTF-8.
    const sized = (bytes: number) => ({ data: `${'é'.repeat(1000)}${'x'.repeat(bytes - 11 - 2000)}` });
    expect(Buffer.byteLength(JSON.stringify(sized(65_536)))).toBe(65_536);
    const env = (valueFrom: unknown) => ({ source_config: { resource_spec: { init_containers: [{ name: 'c', image: 'i', env: [{ name: 'A', valueFrom }] }] } } });
    expect(validatePatchRequest(env(sized(65_536))).ok).toBe(true);
    expect(errorsOf(validatePatchRequest(env(sized(65_537))))).toEqual([
      valueError([...SPEC, 'init_containers', 0, 'env', 0, 'valueFrom'], null, 'must not take more than 65536 bytes as JSON'),
    ]);
  });

  it('any JSON in any free-form field: never a throw, every problem inside that field', () => {
    const places: Array<[Loc, (value: unknown) => Record<string, unknown>]> = [
      [[...SPEC, 'volumes', 0, 'projected'], (value) => ({ volumes: [{ projected: value }] })],
      [[...SPEC, 'sidecars', 0, 'envFrom', 0], (value) => ({ sidecars: [{ name: 'c', image: 'i', envFrom: [value] }] })],
      [[...SPEC, 'init_containers', 0, 'securityContext'], (value) => ({ init_containers: [{ name: 'c', image: 'i', securityContext: value }] })],
    ];
    const text = fc.string({ unit: fc.constantFrom('a', '\u0000', '\ud800', '\udc00', '\ud83d\ude00', 'é'), maxLength: 4 });
    const json = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, text, fc.integer(), fc.constant(null), fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(text, tie('value'), { maxKeys: 3 })),
    })).value;
    fc.assert(fc.property(fc.constantFrom(...places), fc.dictionary(text, json, { maxKeys: 4 }), ([loc, place], value) => {
      const result = validatePatchRequest({ source_config: { resource_spec: place(value) } });
      const strings: string[] = [];
      JSON.stringify(value, (key, item) => { strings.push(key); if (typeof item === 'string') strings.push(item); return item; });
      const unstorable = strings.some((s) => s.includes('\u0000') || !s.isWellFormed());
      expect(result.ok).toBe(!unstorable);
      for (const problem of result.ok ? [] : result.errors) expect(problem.loc.slice(0, loc.length)).toEqual(loc);
    }), { numRuns: 500 });
  });
});

describe('JSON Schema of the bodies', () => {
  const schemas = writeRequestSchemas();

  it('names the two bodies and every model inside them as the original does', () => {
    expect(Object.keys(schemas).sort()).toEqual([
      'Container', 'DeploymentCreateRequest', 'DeploymentPatchRequest', 'EnvVar', 'ListenerConfig', 'LocalObjectReference', 'ResourceRequirements',
      'ResourceSpec-Input', 'Secret', 'SecretReference', 'SourceConfigRequest', 'SourceRevisionConfigRequest', 'Volume', 'VolumeMount',
    ]);
  });

  it('writes required lists, nullable anyOf, ranges, enums and references as pydantic does', () => {
    const create = schemas.DeploymentCreateRequest as { required: string[]; properties: Record<string, unknown> };
    expect(create.required).toEqual(['name', 'source', 'source_config', 'source_revision_config', 'secrets']);
    expect(create.properties.source_config).toEqual({ $ref: '#/components/schemas/SourceConfigRequest' });
    expect(create.properties.secret_references).toMatchObject({ anyOf: [{ type: 'array', items: { $ref: '#/components/schemas/SecretReference' } }, { type: 'null' }] });
    const spec = schemas['ResourceSpec-Input'] as { title: string; required?: unknown; properties: Record<string, unknown> };
    expect(spec.title).toBe('ResourceSpec');
    expect(spec.required).toBeUndefined();
    expect(spec.properties.cpu).toMatchObject({ anyOf: [{ type: 'number', minimum: 0.1, maximum: 8 }, { type: 'null' }], title: 'Cpu' });
    expect(spec.properties.labels).toMatchObject({ anyOf: [{ type: 'object', additionalProperties: { type: 'string' } }, { type: 'null' }] });
    expect(spec.properties.min_scale).toMatchObject({ anyOf: [{ type: 'integer' }, { type: 'null' }] });
    expect((schemas.Volume as { properties: Record<string, unknown> }).properties.name).toMatchObject({ type: 'string', title: 'Name' });
    expect((schemas.Volume as { required?: unknown }).required).toBeUndefined();
    expect(jsonSchemaOf(DeploymentPatchRequest)).toMatchObject({
      type: 'object', title: 'DeploymentPatchRequest',
      properties: { revision_source: { anyOf: [{ type: 'string', enum: ['github', 'internal_docker', 'internal_source'] }, { type: 'null' }] } },
    });
    expect(jsonSchemaOf(DeploymentPatchRequest)).not.toHaveProperty('required');
  });

  it('writes source, deployment_type and revision_source inline with a title, as the original\'s Literals', () => {
    const create = schemas.DeploymentCreateRequest as { properties: Record<string, unknown> };
    expect(create.properties.source).toEqual({
      enum: ['github', 'external_docker', 'internal_docker', 'internal_source'], type: 'string', title: 'Source', description: 'Immutable.',
    });
    expect((schemas.SourceConfigRequest as { properties: Record<string, unknown> }).properties.deployment_type).toEqual({
      anyOf: [{ enum: ['dev_free', 'dev', 'prod'], type: 'string' }, { type: 'null' }], title: 'Deployment Type', description: 'Immutable.',
    });
    expect(jsonSchemaOf(DeploymentPatchRequest)).toMatchObject({ properties: { revision_source: { title: 'Revision Source' } } });
    // No Enum class among the write bodies: no component of one.
    expect(Object.values(schemas).filter((schema) => 'enum' in schema)).toEqual([]);
  });

  it('refers to the statuses, Enum classes, as components of their own; phase and order are inline', () => {
    const planes = dataPlaneRequestSchemas() as Record<string, { properties: Record<string, unknown> } & Record<string, unknown>>;
    expect(planes.RevisionStatusReport!.properties.status).toEqual({ $ref: '#/components/schemas/RevisionStatus', description: expect.any(String) });
    expect(planes.DeploymentStatusReport!.properties.status).toMatchObject({ anyOf: [{ $ref: '#/components/schemas/DeploymentStatus' }, { type: 'null' }] });
    expect(planes.DeploymentStatusReport!.properties.status).not.toHaveProperty('title');
    expect(planes.RevisionStatus).toEqual({ enum: [...REVISION_STATUSES], title: 'RevisionStatus', type: 'string' });
    expect(planes.DeploymentStatus).toEqual({ enum: [...DEPLOYMENT_STATUSES], title: 'DeploymentStatus', type: 'string' });
    expect(planes.LogAppend!.properties.phase).toMatchObject({ enum: ['build', 'deploy', 'runtime'], type: 'string', title: 'Phase' });
    expect(planes.BuildLogsRequest!.properties.order).toMatchObject({ anyOf: [{ enum: ['asc', 'desc'], type: 'string' }, { type: 'null' }], title: 'Order' });
  });
});
