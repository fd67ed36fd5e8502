// The request's DataLoaders, assembled from each domain's own: nested fields of a whole page load in one
// statement per relation, and nothing is cached beyond the request (the context makes one per request). Every
// read goes through the tenant-scoped EntityManager.
import type DataLoader from 'dataloader';
import type { TenantSafeEntityManager } from '../db/tenant-safe-entity-manager.ts';
import { DeploymentLoaders } from '../modules/deployments/deployment-loaders.ts';
import { TagLoaders } from '../modules/deployments/tag-loaders.ts';
import { IntegrationLoaders } from '../modules/integrations/integration-loaders.ts';
import { RevisionLoaders } from '../modules/revisions/revision-loaders.ts';

/** Node lookups: each id's object or null; a failed batch fails the lookup instead of looking like "not found". */
export async function loadNodes<T>(loader: DataLoader<string, T | null>, ids: readonly string[]): Promise<(T | null)[]> {
  const results = await loader.loadMany(ids);
  const failure = results.find((result) => result instanceof Error);
  if (failure) throw failure;
  return results as (T | null)[];
}

export class RequestLoaders {
  readonly deployments: DeploymentLoaders;
  readonly revisions: RevisionLoaders;
  readonly tags: TagLoaders;
  readonly integrations: IntegrationLoaders;

  /** `mayReadSecrets`: whether secret ciphertexts are worth reading at all for this request. */
  constructor(em: TenantSafeEntityManager, mayReadSecrets: boolean) {
    this.deployments = new DeploymentLoaders(em, mayReadSecrets);
    this.revisions = new RevisionLoaders(em);
    this.tags = new TagLoaders(em);
    this.integrations = new IntegrationLoaders(em);
  }
}
