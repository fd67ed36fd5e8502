// Checks real REST answers against the schemas the service's own OpenAPI document declares for them.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

export const DEPLOYMENTS = '/v2/deployments';
export const REPOSITORY_PATHS = [
  '/v1/integrations/codehost/{integration_id}/repos',
  '/v1/integrations/{codehost}/{integration_id}/repos',
  '/v1/integrations/managed/codehost/{integration_id}/repos',
  '/v1/integrations/forge/github/{integration_id}/repos',
];
export const DEPLOYMENT = '/v2/deployments/{deployment_id}';
export const REVISIONS = '/v2/deployments/{deployment_id}/revisions';
export const REVISION = '/v2/deployments/{deployment_id}/revisions/{revision_id}';
export const REDEPLOY = '/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy';
export const PUSH_TOKEN = '/v2/deployments/{deployment_id}/push-token';
export const UPLOAD_URL = '/v2/deployments/{deployment_id}/upload-url';
export const INSTALL_PATHS = [
  '/v1/integrations/codehost/install', '/v1/integrations/{codehost}/install', '/v1/integrations/managed/codehost/install', '/v1/integrations/forge/github/install',
];

/** Fetches /openapi.json from `baseUrl` and returns validators for the responses it declares. */
export async function openApiConformance(baseUrl: string) {
  const response = await fetch(`${baseUrl}/openapi.json`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const spec: any = await response.json();
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats.default(ajv);
  const compiled = new Map<string, ValidateFunction>();

  /** The schema the document declares for `status` of `method` `path`, its `$ref`s resolved into components.schemas. */
  function validatorFor(path: string, status: number, method = 'get'): ValidateFunction {
    const id = `${method} ${path} ${status}`;
    if (!compiled.has(id)) {
      const schema = spec.paths[path]?.[method]?.responses?.[status]?.content?.['application/json']?.schema;
      expect(schema, `${id} has an application/json schema`).toBeDefined();
      const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"#/$defs/'));
      const defs = JSON.parse(JSON.stringify(spec.components.schemas).replaceAll('"#/components/schemas/', '"#/$defs/'));
      compiled.set(id, ajv.compile({ ...rewritten, $defs: defs }));
    }
    return compiled.get(id)!;
  }
  function expectConforms(path: string, answer: { status: number; body: unknown }, method = 'get') {
    const validate = validatorFor(path, answer.status, method);
    expect(validate(answer.body), `${method} ${path} ${answer.status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(answer.body).slice(0, 500)}`).toBe(true);
  }
  return { spec, validatorFor, expectConforms };
}
