// Integrations imported on top of the shared fixture by graphql-repositories.test.ts, and the listing a
// document implies: docs/decisions.md#ordering orders repositories by owner, then name (case-insensitive), then
// code-host id.
import { ACME, GLOBEX } from './fixtures.ts';
import type { Doc, DocIntegration } from './graphql-expect.ts';

export const ACME_MANAGED = 'aaaaaaaa-0000-4000-8000-000000000001';
export const ACME_ORDERING = 'aaaaaaaa-0000-4000-8000-000000000002';
export const ACME_EMPTY = 'aaaaaaaa-0000-4000-8000-000000000003';
export const GLOBEX_CODEHOST = 'bbbbbbbb-0000-4000-8000-000000000001';

const repo = (id: number, owner: string, name: string, defaultBranch = 'main') =>
  ({ id, owner, name, url: `https://git.example/${owner}/${name}`, default_branch: defaultBranch });

/** Owners and names that differ only in case, equal owner+name (tie by numeric id), ids past 2^31 and 2^32. */
export const ORDERING_REPOSITORIES = [
  repo(1, 'beta', 'zeta'),
  repo(2, 'Alpha', 'Zeta'),
  repo(10, 'alpha', 'beta'),
  repo(9, 'ALPHA', 'Beta'),
  repo(100, 'Alpha', 'BETA'),
  repo(3, 'alpha', '_tools'),
  repo(4, 'alpha', 'Alpha'),
  repo(2147483648, 'Gamma', 'svc'),
  repo(2147483647, 'gamma', 'SVC'),
  repo(4294967296, 'GAMMA', 'Svc'),
  // Punctuation and digits, compared character by character after lower-casing: - . 1 _
  repo(11, 'delta', 'a-b'),
  repo(12, 'delta', 'a_b'),
  repo(13, 'delta', 'a1'),
  repo(14, 'delta', 'A.B'),
];
/** The same order, written out, so that a mistake in `listingOrder` below cannot hide one in the service. */
export const ORDERING_EXPECTED_IDS = [3, 4, 9, 10, 100, 2, 1, 11, 14, 13, 12, 2147483647, 2147483648, 4294967296];

export const REPOSITORIES_DOCUMENT: Doc = {
  integrations: [
    { id: ACME_ORDERING, tenant_id: ACME, kind: 'codehost', codehost: 'gitlab', name: 'acme-ordering', repositories: ORDERING_REPOSITORIES },
    {
      id: ACME_MANAGED, tenant_id: ACME, kind: 'managed', codehost: 'github', name: 'acme-managed',
      repositories: [repo(Number.MAX_SAFE_INTEGER, 'acme', 'Platform', 'release'), repo(42, 'Acme-Labs', 'docs', 'gh-pages'), repo(7, 'acme', 'api')],
    },
    { id: ACME_EMPTY, tenant_id: ACME, kind: 'codehost', codehost: 'github', name: 'acme-empty', repositories: [] },
    {
      id: GLOBEX_CODEHOST, tenant_id: GLOBEX, kind: 'codehost', codehost: 'github', name: 'globex-org',
      // The same code-host id and name as one of ACME's repositories: listings must still not mix.
      repositories: [repo(123456, 'acme', 'checkout'), repo(5, 'globex', 'api')],
    },
  ],
};

const lowerThan = (a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0);

export const listingOrder = (a: { owner: string; name: string; codeHostId: number }, b: { owner: string; name: string; codeHostId: number }) =>
  lowerThan(a.owner, b.owner) || lowerThan(a.name, b.name) || a.codeHostId - b.codeHostId;

/** What `repositories`/`managedRepositories` must return for a document's integration (fields of REPOSITORY_FIELDS). */
export function expectedListing(integration: DocIntegration) {
  return integration.repositories.map((r) => ({
    codeHostId: r.id,
    name: r.name,
    owner: r.owner,
    url: r.url,
    defaultBranch: r.default_branch,
    hostIntegrationId: integration.id,
    integration: { uuid: integration.id, kind: integration.kind.toUpperCase(), codehost: integration.codehost, name: integration.name },
  })).sort(listingOrder);
}

export const REPOSITORY_FIELDS = 'codeHostId name owner url defaultBranch hostIntegrationId integration { uuid kind codehost name }';
