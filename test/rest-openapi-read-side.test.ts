// The OpenAPI document's schemas for the deployment, revision and installation routes, checked against real
// answers (every demo deployment, its revisions, each revision, the installation listings, the 404s) and
// against bodies the API must never send. The document itself is checked in rest-openapi.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEPLOYMENT, DEPLOYMENTS, INSTALL_PATHS, REVISION, REVISIONS, openApiConformance,
} from './support/openapi-conformance.ts';
import { startRestDemo, type RestDemo } from './support/rest-demo.ts';

const UNKNOWN = '0badc0de-0000-4000-8000-000000000000';

describe('REST OpenAPI schemas of the read side', () => {
  let demo: RestDemo;
  let validatorFor: Awaited<ReturnType<typeof openApiConformance>>['validatorFor'];
  let expectConforms: Awaited<ReturnType<typeof openApiConformance>>['expectConforms'];

  beforeAll(async () => {
    demo = await startRestDemo();
    ({ validatorFor, expectConforms } = await openApiConformance(demo.app.url));
  });
  afterAll(async () => {
    await demo?.close();
  });

  describe('real answers conform to the declared schemas', () => {
    it('every deployment, its revisions page by page and each revision, with and without the read-secrets scope', async () => {
      for (const key of [demo.keys.plain, demo.keys.secrets]) {
        for (const deployment of demo.deployments) {
          const one = await demo.get(`${DEPLOYMENTS}/${deployment.id}`, { 'X-Api-Key': key });
          expect(one.status).toBe(200);
          expectConforms(DEPLOYMENT, one);
          const page = await demo.get(`${DEPLOYMENTS}/${deployment.id}/revisions?limit=2&offset=1`, { 'X-Api-Key': key });
          expectConforms(REVISIONS, page);
          for (const revision of deployment.revisions) {
            const response = await demo.get(`${DEPLOYMENTS}/${deployment.id}/revisions/${revision.id}`, { 'X-Api-Key': key });
            expect(response.status).toBe(200);
            expectConforms(REVISION, response);
          }
        }
      }
      const full = await demo.get(`${DEPLOYMENTS}/${demo.deployments[2]!.id}/revisions?status=DEPLOYED,BUILDING&remote_reconciled=false`);
      expect(full.status).toBe(200);
      expectConforms(REVISIONS, full);
    });

    it('every installation listing', async () => {
      for (const [template, path] of [[INSTALL_PATHS[0]!, INSTALL_PATHS[0]!], [INSTALL_PATHS[1]!, '/v1/integrations/github/install'],
        [INSTALL_PATHS[1]!, '/v1/integrations/nowhere/install'], [INSTALL_PATHS[2]!, INSTALL_PATHS[2]!], [INSTALL_PATHS[3]!, INSTALL_PATHS[3]!]]) {
        const response = await demo.get(path!);
        expect(response.status, path).toBe(200);
        expect(response.body.length > 0, path).toBe(!path!.includes('nowhere'));
        expectConforms(template!, response);
      }
    });

    it('404 for an unknown deployment or revision, in the original\'s wording', async () => {
      const deployment = demo.deployments[0]!;
      const calls: [string, string, string][] = [
        [DEPLOYMENT, `${DEPLOYMENTS}/${UNKNOWN}`, `Deployment ID ${UNKNOWN} not found.`],
        [REVISIONS, `${DEPLOYMENTS}/${UNKNOWN}/revisions`, `Deployment ID ${UNKNOWN} not found.`],
        [REVISION, `${DEPLOYMENTS}/${UNKNOWN}/revisions/${deployment.revisions[0]!.id}`, `Deployment ID ${UNKNOWN} not found.`],
        [REVISION, `${DEPLOYMENTS}/${deployment.id}/revisions/${UNKNOWN}`, `Revision ID ${UNKNOWN} not found.`],
      ];
      for (const [template, path, message] of calls) {
        const response = await demo.get(path);
        expect({ status: response.status, body: response.body }).toEqual({ status: 404, body: { detail: message } });
        expectConforms(template, response);
      }
    });
  });

  describe('the schemas reject what the API must not send', () => {
    it('a revision record or installation missing a key, with an extra key or a wrong type', async () => {
      const deployment = demo.deployments[2]!;
      const page = (await demo.get(`${DEPLOYMENTS}/${deployment.id}/revisions`)).body;
      expect(page.resources.length).toBeGreaterThan(1);
      const validate = validatorFor(REVISIONS, 200);
      expect(validate(page)).toBe(true);
      const mutations: ((p: any) => void)[] = [
        (p) => delete p.resources[0].updated_at,
        (p) => { p.resources[0].remote_reconciled = true; },
        (p) => { p.resources[0].source = 'GITHUB'; },
        (p) => { p.resources[1].status = 'READY'; },
        (p) => { p.resources[0].source_revision_config = null; },
        (p) => delete p.resources[0].source_revision_config.repo_ref,
        (p) => delete p.offset,
      ];
      for (const mutate of mutations) {
        const copy = structuredClone(page);
        mutate(copy);
        expect(validate(copy), mutate.toString()).toBe(false);
      }
      const install = validatorFor(INSTALL_PATHS[0]!, 200);
      expect(install([{ id: UNKNOWN, installation_id: 1, name: 'a' }])).toBe(true);
      expect(install([{ id: UNKNOWN, installation_id: null, name: 'a' }])).toBe(false);
      expect(install([{ id: UNKNOWN, name: 'a' }])).toBe(false);
    });
  });
});
