// Data imported on top of the shared fixture by graphql-tenancy.test.ts, so that GLOBEX has an object of
// every node type, several of them with the same names, keys and code-host ids as ACME's, and so that one
// ACME deployment points (by revision id) at GLOBEX revisions.
import { ACME, GLOBEX } from './fixtures.ts';
import type { Doc } from './graphql-expect.ts';
import { fixtureDocument } from './graphql-expect.ts';

export const GLOBEX_CODEHOST = 'bbbbbbbb-0000-4000-8000-000000000001';
export const GLOBEX_ENV_PROD = 'bbbbbbbb-0000-4000-8000-000000000011';
export const GLOBEX_TIER_GOLD = 'bbbbbbbb-0000-4000-8000-000000000012';
export const GLOBEX_CHECKOUT = 'bbbbbbbb-0000-4000-8000-000000000021';
export const GLOBEX_REVISIONS = ['bbbbbbbb-0000-4000-8000-000000000031', 'bbbbbbbb-0000-4000-8000-000000000032'] as const;
export const ACME_DANGLING = 'aaaaaaaa-0000-4000-8000-000000000021';

export const TENANCY_DOCUMENT: Doc = {
  tags: [
    // Same key as ACME's `env`, same value as ACME's `prod`.
    { tenant_id: GLOBEX, key: 'env', values: [{ id: GLOBEX_ENV_PROD, value: 'prod' }] },
    { tenant_id: GLOBEX, key: 'tier', values: [{ id: GLOBEX_TIER_GOLD, value: 'gold' }] },
  ],
  integrations: [{
    id: GLOBEX_CODEHOST, tenant_id: GLOBEX, kind: 'codehost', codehost: 'github', name: 'acme-org',
    repositories: [
      { id: 123456, name: 'checkout', owner: 'acme', url: 'https://github.com/globex/checkout', default_branch: 'main' },
      { id: 5, name: 'api', owner: 'globex', url: 'https://github.com/globex/api', default_branch: 'main' },
    ],
  }],
  deployments: [
    {
      name: 'checkout-prod',
      source_config: { integration_id: GLOBEX_CODEHOST, repo_url: 'https://github.com/globex/checkout', deployment_type: 'prod' },
      secrets: [{ name: 'STRIPE_SECRET', value: 'sk_live_globex_only' }],
      id: GLOBEX_CHECKOUT, tenant_id: GLOBEX,
      created_at: '2026-03-05T00:00:00Z', updated_at: '2026-03-05T00:00:00Z',
      latest_revision_id: GLOBEX_REVISIONS[1], active_revision_id: GLOBEX_REVISIONS[0],
      image_version: '1.4.2', status: 'READY', source: 'github', remote_reconciled: true,
      tag_value_ids: [GLOBEX_ENV_PROD, GLOBEX_TIER_GOLD],
      revisions: [
        { id: GLOBEX_REVISIONS[0], status: 'DEPLOYED', created_at: '2026-03-05T00:01:00Z' },
        { id: GLOBEX_REVISIONS[1], status: 'BUILDING', created_at: '2026-03-05T00:02:00Z' },
      ],
    },
    {
      // An ACME deployment whose revision ids are GLOBEX's: the ids are data, the revisions must stay hidden.
      name: 'acme-dangling', source_config: { deployment_type: 'dev' },
      id: ACME_DANGLING, tenant_id: ACME, created_at: '2026-01-15T00:00:00Z', updated_at: '2026-01-15T00:00:00Z',
      latest_revision_id: GLOBEX_REVISIONS[1], active_revision_id: GLOBEX_REVISIONS[0],
      status: 'UNKNOWN', source: 'internal_source',
    },
  ],
};

const documents = () => [fixtureDocument(), TENANCY_DOCUMENT];

/** What the documents put into one tenant, by raw id. */
export function tenantContents(tenant: string) {
  const deployments = documents().flatMap((d) => d.deployments ?? []).filter((d) => d.tenant_id === tenant);
  const tags = documents().flatMap((d) => d.tags ?? []).filter((t) => t.tenant_id === tenant);
  const integrations = documents().flatMap((d) => d.integrations ?? []).filter((i) => i.tenant_id === tenant);
  return {
    deployments,
    deploymentIds: deployments.map((d) => d.id),
    revisionIds: deployments.flatMap((d) => (d.revisions ?? []).map((r) => r.id)),
    tagKeys: tags.map((t) => t.key),
    tagValueIds: tags.flatMap((t) => t.values.map((v) => v.id)),
    integrationIds: integrations.map((i) => i.id),
    repositoryUrls: integrations.flatMap((i) => i.repositories.map((r) => r.url)),
  };
}
