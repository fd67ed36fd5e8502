// The REST door's OpenAPI 3.1 document (docs/decisions.md#other-rest-behaviour): a valid document listing every
// route with its parameters and responses, the /docs page, and real responses (200 pages, repository
// listings and every error status) validated against the schema the document declares for them.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TENANT_ID } from '../src/demo/demo-dataset.ts';
import { ACME_INTEGRATION } from './support/fixtures.ts';
import {
  DEPLOYMENT, DEPLOYMENTS, INSTALL_PATHS, REPOSITORY_PATHS, REVISION, REVISIONS, openApiConformance,
} from './support/openapi-conformance.ts';
import { startRestDemo, type RestDemo } from './support/rest-demo.ts';

const PATHS_WITH_404 = [...REPOSITORY_PATHS, DEPLOYMENT, REVISIONS, REVISION];
const QUERY_PARAMETERS = ['limit', 'offset', 'name_contains', 'status', 'remote_reconciled', 'tag_value_ids', 'image_version', 'deployment_type', 'deployment_ids'];
const UNKNOWN = '0badc0de-0000-4000-8000-000000000000';

describe('REST OpenAPI document', () => {
  let demo: RestDemo;
  let spec: any;
  let validatorFor: Awaited<ReturnType<typeof openApiConformance>>['validatorFor'];
  let expectConforms: Awaited<ReturnType<typeof openApiConformance>>['expectConforms'];
  const repoPath = (template: string, id: string, codehost = 'github') =>
    template.replace('{integration_id}', id).replace('{codehost}', codehost);
  const integration = (name: string) => demo.doc.integrations.find((i) => i.name === name)!;

  beforeAll(async () => {
    demo = await startRestDemo();
    ({ spec, validatorFor, expectConforms } = await openApiConformance(demo.app.url));
  });
  afterAll(async () => {
    await demo?.close();
  });

  describe('the document', () => {
    it('is a valid OpenAPI 3.1 document, served without a key', async () => {
      expect(spec.openapi).toMatch(/^3\.1\.\d+$/);
      const validator = new Validator();
      const result = await validator.validate(spec);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
    });

    it('lists exactly the REST routes with their methods, each with a unique operationId', () => {
      const writes: Record<string, string[]> = {
        [DEPLOYMENTS]: ['delete', 'get', 'post'], [DEPLOYMENT]: ['delete', 'get', 'patch'],
        [`${REVISION}/redeploy`]: ['post'], [`${DEPLOYMENT}/push-token`]: ['post'], [`${DEPLOYMENT}/upload-url`]: ['post'],
        // The CLI's build and deploy logs (reads, though POSTs), and the data planes' routes (ours).
        '/v1/projects/{deployment_id}/revisions/{revision_id}/build_logs': ['post'],
        '/v1/projects/{deployment_id}/deploy_logs': ['post'], '/v1/projects/{deployment_id}/revisions/{revision_id}/deploy_logs': ['post'],
        '/v2/data-plane/claims': ['post'], '/v2/data-plane/revisions/{revision_id}/status': ['post'],
        '/v2/data-plane/revisions/{revision_id}/logs': ['post'], '/v2/data-plane/deployments/{deployment_id}/status': ['post'],
        // The original's listeners (issue 53).
        '/v2/data-plane/heartbeat': ['post'], '/v2/listeners': ['get', 'post'], '/v2/listeners/{listener_id}': ['delete', 'get', 'patch'],
      };
      expect(Object.keys(spec.paths).sort())
        .toEqual([DEPLOYMENTS, ...REPOSITORY_PATHS, ...INSTALL_PATHS, DEPLOYMENT, REVISIONS, REVISION, ...Object.keys(writes)].sort().filter((p, i, all) => all.indexOf(p) === i));
      const operationIds = Object.entries(spec.paths).flatMap(([path, item]: [string, any]) => {
        expect(Object.keys(item).sort(), path).toEqual(writes[path] ?? ['get']);
        return Object.values(item).map((operation: any) => operation.operationId);
      });
      expect(new Set(operationIds).size).toBe(operationIds.length);
    });

    it('declares the nine query parameters of GET /v2/deployments, none required, with their limits', () => {
      const parameters: any[] = spec.paths[DEPLOYMENTS].get.parameters;
      const query = parameters.filter((p) => p.in === 'query');
      expect(query.map((p) => p.name).sort()).toEqual([...QUERY_PARAMETERS].sort());
      for (const parameter of query) {
        expect(parameter.required ?? false, parameter.name).toBe(false);
        expect(parameter.schema, parameter.name).toBeTypeOf('object');
      }
      expect(parameters.filter((p) => p.in === 'path')).toEqual([]);
      const limit = query.find((p) => p.name === 'limit').schema;
      expect(limit).toMatchObject({ type: 'integer', default: 20, minimum: 1, maximum: 100 });
      expect(query.find((p) => p.name === 'offset').schema).toMatchObject({ type: 'integer', default: 0, minimum: 0 });
      const deploymentType = JSON.stringify(query.find((p) => p.name === 'deployment_type').schema);
      for (const value of ['dev_free', 'dev', 'prod']) expect(deploymentType).toContain(`"${value}"`);
    });

    it('declares a required integration_id path parameter (a UUID) on every repository path', () => {
      for (const path of REPOSITORY_PATHS) {
        const pathParameters = spec.paths[path].get.parameters.filter((p: any) => p.in === 'path');
        const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        expect(pathParameters.map((p: any) => p.name).sort(), path).toEqual(names.sort());
        const id = pathParameters.find((p: any) => p.name === 'integration_id');
        expect(id, path).toMatchObject({ required: true, schema: { type: 'string', format: 'uuid' } });
      }
    });

    it('declares the path parameters and limits of the deployment and revision routes', () => {
      const parameters = (path: string) => spec.paths[path].get.parameters.filter((p: any) => p.in !== 'header')
        .map((p: any) => ({ name: p.name, in: p.in, required: p.required, schema: p.schema }));
      const uuidPath = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string', format: 'uuid' } });
      expect(parameters(DEPLOYMENT)).toEqual([uuidPath('deployment_id')]);
      expect(parameters(REVISION)).toEqual([uuidPath('deployment_id'), uuidPath('revision_id')]);
      expect(parameters(REVISIONS).map((p: { name: string }) => p.name)).toEqual(['deployment_id', 'limit', 'offset', 'status', 'remote_reconciled']);
      expect(parameters(REVISIONS)[1].schema).toMatchObject({ type: 'integer', default: 20, minimum: 1, maximum: 100 });
      expect(parameters(REVISIONS)[2].schema).toMatchObject({ type: 'integer', default: 0, minimum: 0 });
      for (const path of INSTALL_PATHS) expect(parameters(path).map((p: { name: string }) => p.name), path).toEqual(path.includes('{codehost}') ? ['codehost'] : []);
    });

    it('declares 200, 304, 401, 403 and 500 for every operation, 422 where there are parameters, and 404 where an id can be missing', () => {
      for (const path of [DEPLOYMENTS, ...REPOSITORY_PATHS, ...INSTALL_PATHS, DEPLOYMENT, REVISIONS, REVISION]) {
        const parameters = spec.paths[path].get.parameters.filter((p: any) => p.in !== 'header');
        const expected = ['200', '401', '403', ...(PATHS_WITH_404.includes(path) ? ['404'] : []), ...(parameters.length > 0 ? ['422'] : []), '500'];
        const responses = spec.paths[path].get.responses;
        expect(Object.keys(responses).sort(), path).toEqual(['304', ...expected].sort());
        for (const status of expected) expect(responses[status].content?.['application/json']?.schema, `${path} ${status}`).toBeDefined();
        // A conditional read: If-None-Match, the validators on the 200, and the 304 without a body.
        expect(responses[304].content, path).toBeUndefined();
        expect(Object.keys(responses[200].headers).sort(), path).toEqual(['Cache-Control', 'ETag', 'Vary']);
        expect(spec.paths[path].get.parameters.map((p: any) => p.name), path).toContain('If-None-Match');
      }
    });

    it('is served at /docs as a Swagger UI page that loads /openapi.json', async () => {
      const response = await fetch(`${demo.app.url}/docs`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await response.text();
      expect(html).toMatch(/<!DOCTYPE html>/i);
      expect(html).toContain('<script type="application/json" id="swagger-ui-page">{"specUrl":"/openapi.json"}</script>');
      expect(html).toMatch(/<script src="\/assets\/swagger-ui-bundle\.[0-9a-f]+\.js">/);
    });
  });

  describe('real 200 bodies conform to the declared schemas', () => {
    it('GET /v2/deployments: every page, with and without the read-secrets scope', async () => {
      for (const [key, masked] of [[demo.keys.plain, true], [demo.keys.secrets, false]] as const) {
        const seen: string[] = [];
        let offset = 0;
        for (;;) {
          const response = await demo.get(`${DEPLOYMENTS}?limit=7&offset=${offset}`, { 'X-Api-Key': key });
          expect(response.status).toBe(200);
          expectConforms(DEPLOYMENTS, response);
          seen.push(...response.body.resources.map((r: { id: string }) => r.id));
          offset = response.body.offset;
          if (response.body.resources.length < 7) break;
        }
        expect(new Set(seen).size).toBe(demo.deployments.length);
        const secrets = (await demo.get(`${DEPLOYMENTS}?limit=100`, { 'X-Api-Key': key })).body.resources.flatMap((r: any) => r.secrets);
        expect(secrets.length).toBeGreaterThan(0);
        expect(secrets.every((s: { value: string }) => s.value === '********')).toBe(masked);
      }
    });

    it('GET /v2/deployments with filters, past the end and with an empty result', async () => {
      const tag = demo.doc.tags[0]!.values[0]!.id;
      const queries = [
        'name_contains=API&status=READY,UNUSED', `tag_value_ids=${tag}&remote_reconciled=yes`, 'deployment_type=prod&limit=3&offset=2',
        `deployment_ids=${demo.deployments[0]!.id},${demo.deployments[5]!.id.toUpperCase()}`, 'image_version=nope', 'offset=100000',
        `deployment_ids=${UNKNOWN}`, 'name_contains=%25&limit=1',
      ];
      for (const query of queries) {
        const response = await demo.get(`${DEPLOYMENTS}?${query}`, { 'X-Api-Key': demo.keys.secrets });
        expect(response.status, query).toBe(200);
        expectConforms(DEPLOYMENTS, response);
      }
    });

    it('a demo deployment built from github names a github.com repository of a GitHub integration', async () => {
      const codehostOf = new Map(demo.doc.integrations.map((i) => [i.id, `${i.kind} ${i.codehost}`]));
      const { resources } = (await demo.get(`${DEPLOYMENTS}?limit=100`)).body;
      const fromGithub = resources.filter((r: any) => r.source === 'github' && r.source_config.repo_url !== null);
      expect(fromGithub.length).toBeGreaterThan(10);
      for (const { name, source_config: config } of fromGithub) {
        expect(config.repo_url, name).toMatch(/^https:\/\/github\.com\//);
        expect(codehostOf.get(config.integration_id), name).toBe('codehost github');
      }
      expect(resources.filter((r: any) => r.source !== 'github' && r.source_config.repo_url !== null)).toEqual([]);
    });

    it('every repository listing', async () => {
      const [github, gitlab, managed] = [integration('acme-corp'), integration('acme-labs'), integration('acme-managed')];
      const calls: [string, string][] = [
        [REPOSITORY_PATHS[0]!, repoPath(REPOSITORY_PATHS[0]!, github.id)],
        [REPOSITORY_PATHS[1]!, repoPath(REPOSITORY_PATHS[1]!, github.id, 'github')],
        [REPOSITORY_PATHS[1]!, repoPath(REPOSITORY_PATHS[1]!, gitlab.id.toUpperCase(), 'gitlab')],
        [REPOSITORY_PATHS[2]!, repoPath(REPOSITORY_PATHS[2]!, managed.id)],
        [REPOSITORY_PATHS[3]!, repoPath(REPOSITORY_PATHS[3]!, managed.id)],
      ];
      for (const [template, path] of calls) {
        const response = await demo.get(path);
        expect(response.status, path).toBe(200);
        expect(response.body.length, path).toBeGreaterThan(0);
        expectConforms(template, response);
      }
    });
  });

  describe('real error bodies conform to the declared schemas', () => {
    const everyPath = () => [
      [DEPLOYMENTS, DEPLOYMENTS], ...REPOSITORY_PATHS.map((p) => [p, repoPath(p, integration('acme-managed').id)]),
      ...INSTALL_PATHS.map((p) => [p, p.replace('{codehost}', 'github')]),
      [DEPLOYMENT, `${DEPLOYMENTS}/${UNKNOWN}`], [REVISIONS, `${DEPLOYMENTS}/${UNKNOWN}/revisions`], [REVISION, `${DEPLOYMENTS}/${UNKNOWN}/revisions/${UNKNOWN}`],
    ];

    it('401 without a key or with an unknown one, 403 for a tenant not granted or not chosen', async () => {
      const cases: [Record<string, string>, number, string][] = [
        [{}, 401, 'Not authenticated'],
        [{ 'X-Api-Key': 'dmk_not_a_real_key' }, 401, 'Invalid API key'],
        [{ 'X-Api-Key': demo.keys.acme, 'X-Tenant-Id': DEMO_TENANT_ID }, 403, `Tenant ${DEMO_TENANT_ID} is not accessible with this API key`],
        [{ 'X-Api-Key': demo.keys.acmeAndDemo }, 403, 'requires workspace specification'],
      ];
      for (const [template, path] of everyPath()) {
        for (const [headers, status, message] of cases) {
          const response = await demo.get(path!, headers);
          expect({ path, status: response.status, body: response.body }).toEqual({ path, status, body: { detail: message } });
          expectConforms(template!, response);
        }
      }
    });

    it('404 for an unknown, another tenant\'s or wrong-kind integration', async () => {
      const [github, managed] = [integration('acme-corp'), integration('acme-managed')];
      const calls: [string, string, string][] = [
        [REPOSITORY_PATHS[0]!, UNKNOWN, UNKNOWN],
        [REPOSITORY_PATHS[0]!, ACME_INTEGRATION, ACME_INTEGRATION],
        [REPOSITORY_PATHS[0]!, managed.id, managed.id],
        [REPOSITORY_PATHS[2]!, github.id.toUpperCase(), github.id],
        [REPOSITORY_PATHS[3]!, `{${github.id}}`, github.id],
      ];
      for (const [template, id, canonical] of calls) {
        const response = await demo.get(repoPath(template, encodeURIComponent(id)));
        expect({ status: response.status, body: response.body }).toEqual({ status: 404, body: { detail: `Integration ${canonical} not found.` } });
        expectConforms(template, response);
      }
      const otherHost = await demo.get(repoPath(REPOSITORY_PATHS[1]!, github.id, 'gitlab'));
      expect(otherHost.status).toBe(404);
      expectConforms(REPOSITORY_PATHS[1]!, otherHost);
    });

    it('422 of every kind, as FastAPI writes them', async () => {
      const limitZero = await demo.get(`${DEPLOYMENTS}?limit=0`);
      expect(limitZero.body).toEqual({ detail: [{ type: 'greater_than_equal', loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', input: '0', ctx: { ge: 1 } }] });
      const uuids = Array.from({ length: 101 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`).join(',');
      const queries: [string, string[]][] = [
        ['limit=0', ['greater_than_equal']], ['limit=101', ['less_than_equal']], ['offset=1.5', ['int_parsing']],
        ['remote_reconciled=maybe', ['bool_parsing']], ['deployment_type=PROD', ['literal_error']], ['status=READY,bogus', ['enum']],
        ['deployment_ids=nope', ['uuid_parsing']], [`deployment_ids=${uuids}`, ['too_long']], ['name_contains=a%00b', ['value_error']],
        ['limit=x&offset=-1&status=&remote_reconciled=&tag_value_ids=,', ['int_parsing', 'greater_than_equal', 'bool_parsing', 'uuid_parsing', 'uuid_parsing']],
      ];
      for (const [query, types] of queries) {
        const response = await demo.get(`${DEPLOYMENTS}?${query}`);
        expect({ query, status: response.status }).toEqual({ query, status: 422 });
        expect(response.body.detail.map((e: { type: string }) => e.type), query).toEqual(types);
        expectConforms(DEPLOYMENTS, response);
      }
      for (const [template, path] of [[DEPLOYMENT, `${DEPLOYMENTS}/x`], [REVISIONS, `${DEPLOYMENTS}/x/revisions?limit=0&status=READY`], [REVISION, `${DEPLOYMENTS}/x/revisions/y`]]) {
        const response = await demo.get(path!);
        expect(response.status, path).toBe(422);
        expectConforms(template!, response);
      }
      for (const template of REPOSITORY_PATHS) {
        const response = await demo.get(repoPath(template, 'not-a-uuid'));
        expect(response.status).toBe(422);
        expect(response.body.detail).toMatchObject([{ type: 'uuid_parsing', loc: ['path', 'integration_id'], input: 'not-a-uuid' }]);
        expectConforms(template, response);
      }
    });
  });

  describe('the schemas reject what the API must not send', () => {
    it('a deployment record missing a key, with an extra key or a wrong type; malformed error bodies', async () => {
      const page = (await demo.get(`${DEPLOYMENTS}?limit=2`)).body;
      expectConforms(DEPLOYMENTS, { status: 200, body: page });
      const validate = validatorFor(DEPLOYMENTS, 200);
      const mutations: ((p: any) => void)[] = [
        (p) => delete p.resources[0].image_version,
        (p) => { p.resources[0].extra = 1; },
        (p) => { p.resources[1].source_config.deployment_type = 'PROD'; },
        (p) => { p.resources[0].status = 'ready'; },
        (p) => { p.resources[0].id = 'not-a-uuid'; },
        (p) => { p.offset = '2'; },
        (p) => delete p.resources[1].secrets,
        (p) => delete p.offset,
      ];
      for (const mutate of mutations) {
        const copy = structuredClone(page);
        mutate(copy);
        expect(validate(copy), mutate.toString()).toBe(false);
      }
      const validation = validatorFor(DEPLOYMENTS, 422);
      expect(validation({ detail: [{ type: 'int_parsing', loc: ['query', 'limit'], msg: 'm', input: 'x' }] })).toBe(true);
      expect(validation({ detail: [{ type: 'int_parsing', msg: 'm', input: 'x' }] })).toBe(false);
      expect(validation({ detail: 'Not authenticated' })).toBe(false);
      expect(validatorFor(DEPLOYMENTS, 401)({ detail: [] })).toBe(false);
      expect(validatorFor(REPOSITORY_PATHS[0]!, 200)([{ host_integration_id: UNKNOWN, id: '1', name: 'a', owner: 'b', url: 'u', default_branch: 'main' }])).toBe(false);
    });
  });
});
