// The installation listings (GET /v1/integrations/github/install, /v1/integrations/forge/github/install and the
// neutral spellings beside them) as a legacy client reads them: bare arrays of {id, installation_id, name}
// written out from the original's shape (docs/legacy-api.md#installation-listings), another tenant's
// integrations never among them, and the same integrations GraphQL shows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from './support/app-server.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME, ACME_INTEGRATION, GLOBEX, GLOBEX_INTEGRATION } from './support/fixtures.ts';
import { dataOf, type Doc } from './support/graphql-expect.ts';
import { textSummary } from './support/legacy-text.ts';

const [ACME_LAB, ACME_MANAGED, ACME_OLD, ACME_SAME_NAME, GLOBEX_HUB] = [
  'cccccccc-1000-4000-8000-000000000001', 'cccccccc-1000-4000-8000-000000000002', 'cccccccc-1000-4000-8000-000000000003',
  'cccccccc-1000-4000-8000-000000000004', 'dddddddd-1000-4000-8000-000000000001',
];
const integration = (id: string, tenant: string, kind: string, codehost: string, name: string, installationId?: number) =>
  ({ id, tenant_id: tenant, kind, codehost, name, ...(installationId !== undefined && { installation_id: installationId }), repositories: [] });
// The fixture has ACME's acme-org (github, 52001234) and GLOBEX's globex-managed (52009999).
const DOCUMENT: Doc = {
  integrations: [
    integration(ACME_LAB, ACME, 'codehost', 'gitlab', 'Acme-Lab', 7),
    integration(ACME_MANAGED, ACME, 'managed', 'github', 'acme-managed', 2 ** 40),
    // Written in the older format, without an installation id: not an installation the listings can offer.
    integration(ACME_OLD, ACME, 'codehost', 'github', 'acme-old'),
    // The same name as acme-org, case aside: the id breaks the tie.
    integration(ACME_SAME_NAME, ACME, 'codehost', 'github', 'ACME-ORG', 3),
    integration(GLOBEX_HUB, GLOBEX, 'codehost', 'github', 'acme-org', 52001234),
  ] as Doc['integrations'],
};
// Written out by hand: ordered by name (case-insensitive), then id.
const ACME_ORG = `{"id":"${ACME_INTEGRATION}","installation_id":52001234,"name":"acme-org"}`;
const ACME_ORG_UPPER = `{"id":"${ACME_SAME_NAME}","installation_id":3,"name":"ACME-ORG"}`;
const ACME_LAB_ROW = `{"id":"${ACME_LAB}","installation_id":7,"name":"Acme-Lab"}`;
const EXPECTED: [string, string, string][] = [
  ['ACME', '/v1/integrations/github/install', `[${ACME_ORG},${ACME_ORG_UPPER}]`],
  ['ACME', '/v1/integrations/codehost/install', `[${ACME_LAB_ROW},${ACME_ORG},${ACME_ORG_UPPER}]`],
  ['ACME', '/v1/integrations/gitlab/install', `[${ACME_LAB_ROW}]`],
  ['ACME', '/v1/integrations/bitbucket/install', '[]'],
  ['ACME', '/v1/integrations/forge/github/install', `[{"id":"${ACME_MANAGED}","installation_id":1099511627776,"name":"acme-managed"}]`],
  ['ACME', '/v1/integrations/managed/codehost/install', `[{"id":"${ACME_MANAGED}","installation_id":1099511627776,"name":"acme-managed"}]`],
  ['GLOBEX', '/v1/integrations/github/install', `[{"id":"${GLOBEX_HUB}","installation_id":52001234,"name":"acme-org"}]`],
  ['GLOBEX', '/v1/integrations/gitlab/install', '[]'],
  ['GLOBEX', '/v1/integrations/forge/github/install', `[{"id":"${GLOBEX_INTEGRATION}","installation_id":52009999,"name":"globex-managed"}]`],
];

describe('REST: installation listings', () => {
  let fixture: FixtureApp<'ACME' | 'GLOBEX'>;
  let app: RunningApp;
  let keys: FixtureApp<'ACME' | 'GLOBEX'>['keys'];

  beforeAll(async () => {
    fixture = await startFixtureApp([DOCUMENT], { ACME: { tenants: [ACME] }, GLOBEX: { tenants: [GLOBEX] } });
    ({ app, keys } = fixture);
  });
  afterAll(() => fixture?.close());

  const get = (path: string, headers: Record<string, string>, method = 'GET') => fetch(`${app.url}${path}`, { method, headers });

  it.each(EXPECTED)('%s: GET %s, byte for byte', async (tenant, path, expected) => {
    const response = await get(path, { 'x-api-key': keys[tenant as 'ACME'] });
    expect(await textSummary(response, expected)).toEqual({ status: 200, type: 'application/json', body: 'identical' });
  });

  it('lists the integrations GraphQL shows with an installation id, of the right kind and code host', async () => {
    const query = '{ integrations { uuid kind codehost name installationId } }';
    for (const tenant of ['ACME', 'GLOBEX'] as const) {
      const { integrations } = dataOf(await app.graphql(query, { 'x-api-key': keys[tenant] }));
      expect(integrations.some((i: { installationId: number | null }) => i.installationId === null)).toBe(tenant === 'ACME');
      for (const [path, kind, codehost] of [['codehost/install', 'CODEHOST'], ['github/install', 'CODEHOST', 'github'], ['managed/codehost/install', 'MANAGED']]) {
        const expected = integrations
          .filter((i: any) => i.installationId !== null && i.kind === kind && (!codehost || i.codehost === codehost))
          .map((i: any) => ({ id: i.uuid, installation_id: i.installationId, name: i.name }));
        const response = await get(`/v1/integrations/${path}`, { 'x-api-key': keys[tenant] });
        expect({ tenant, path, body: await response.json() }).toEqual({ tenant, path, body: expected });
      }
    }
  });

  it('never a 500 for an odd code-host segment; no key, another method and a trailing slash as for every route', async () => {
    for (const segment of ['%00', 'git%2Fhub', '%C3%A9', 'x'.repeat(2000)]) {
      const response = await get(`/v1/integrations/${segment}/install`, { 'x-api-key': keys.ACME });
      expect({ segment: segment.slice(0, 20), status: response.status, body: await response.json() })
        .toEqual({ segment: segment.slice(0, 20), status: segment === 'git%2Fhub' ? 404 : 200, body: segment === 'git%2Fhub' ? { detail: 'Not Found' } : [] });
    }
    const noKey = await get('/v1/integrations/github/install', {});
    expect({ status: noKey.status, body: await noKey.json() }).toEqual({ status: 401, body: { detail: 'Not authenticated' } });
    const post = await get('/v1/integrations/forge/github/install', { 'x-api-key': keys.ACME }, 'POST');
    expect({ status: post.status, allow: post.headers.get('allow') }).toEqual({ status: 405, allow: 'GET, HEAD' });
    const slash = await fetch(`${app.url}/v1/integrations/codehost/install/`, { redirect: 'manual' });
    expect({ status: slash.status, location: slash.headers.get('location') }).toEqual({ status: 307, location: `${app.url}/v1/integrations/codehost/install` });
  });
});
