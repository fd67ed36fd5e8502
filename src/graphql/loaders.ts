// The request's DataLoaders, assembled from each domain's own: nested fields of a whole page load in one
// statement per relation, and nothing is cached beyond the request (the context makes one per request, and a
// subscription one per chunk of events). Every read goes through the tenant-scoped EntityManager.
import type DataLoader from 'dataloader';
import type { TenantSafeEntityManager } from '../db/tenant-safe-entity-manager.ts';
import { DeploymentLoaders } from '../modules/deployments/deployment-loaders.ts';
import { TagLoaders } from '../modules/deployments/tag-loaders.ts';
import { IntegrationLoaders } from '../modules/integrations/integration-loaders.ts';
import { ListenerLoaders } from '../modules/listeners/listener-loaders.ts';
import { RevisionLoaders } from '../modules/revisions/revision-loaders.ts';
import type { SecretRevealer } from '../modules/secrets/secret-revealer.ts';
import { NOTHING_TOGETHER, type LoadTogether } from '../modules/common/load-together.ts';

/** Node lookups: each id's object or null; a failed batch fails the lookup instead of looking like "not found". */
export async function loadNodes<T>(loader: DataLoader<string, T | null>, ids: readonly string[]): Promise<(T | null)[]> {
  const results = await loader.loadMany(ids);
  const failure = results.find((result) => result instanceof Error);
  if (failure) throw failure;
  return results as (T | null)[];
}

export class RequestLoaders {
  readonly #em: () => TenantSafeEntityManager;
  readonly #revealWith: SecretRevealer | null;
  readonly #together: LoadTogether;
  // Each domain's loaders are made on first use: most requests (a listing's own columns, `{ __typename }`)
  // touch none or one of them, and making them all cost every request a few microseconds.
  #deployments?: DeploymentLoaders;
  #revisions?: RevisionLoaders;
  #tags?: TagLoaders;
  #integrations?: IntegrationLoaders;
  #listeners?: ListenerLoaders;

  /**
   * `em`: the request's EntityManager, asked for when a domain's loaders are first used. `revealWith`: what
   * decrypts (secret-revealer.ts), for a caller that may see secret values (null: values are neither read nor decrypted). `together`:
   * what the events of a subscription chunk will ask for one at a time (see modules/common/load-together.ts); nothing for a
   * request.
   */
  constructor(em: () => TenantSafeEntityManager, revealWith: SecretRevealer | null, together: LoadTogether = NOTHING_TOGETHER) {
    this.#em = em;
    this.#revealWith = revealWith;
    this.#together = together;
  }

  /**
   * Forgets everything loaded so far: a write is about to change what it showed (a document's second mutation
   * must not answer from what its first one read).
   */
  forgetAll(): void {
    this.#deployments = this.#revisions = this.#tags = this.#integrations = this.#listeners = undefined;
  }

  get deployments(): DeploymentLoaders {
    return (this.#deployments ??= new DeploymentLoaders(this.#em(), this.#revealWith, this.#together));
  }

  get revisions(): RevisionLoaders {
    return (this.#revisions ??= new RevisionLoaders(this.#em(), this.#together));
  }

  get tags(): TagLoaders {
    return (this.#tags ??= new TagLoaders(this.#em(), this.#together));
  }

  get integrations(): IntegrationLoaders {
    return (this.#integrations ??= new IntegrationLoaders(this.#em(), this.#together));
  }

  get listeners(): ListenerLoaders {
    return (this.#listeners ??= new ListenerLoaders(this.#em()));
  }
}
