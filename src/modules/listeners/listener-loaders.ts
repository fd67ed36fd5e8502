// The listeners domain's DataLoaders, owned by the request's loaders (graphql/loaders.ts): listeners by id, so
// that the `listener` of a whole page of deployments is one statement.
import DataLoader from 'dataloader';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';
import { ListenerSchema } from './listener.entity.ts';
import type { ListenerReadModel } from './listener-read-model.ts';
import type { ListenerRepository } from './listener.repository.ts';

export class ListenerLoaders {
  readonly byId: DataLoader<string, ListenerReadModel | null>;
  readonly repository: ListenerRepository;

  constructor(em: TenantSafeEntityManager) {
    this.repository = em.getRepository(ListenerSchema);
    this.byId = new DataLoader((ids) => this.repository.findRowsByIds(ids.map((id) => id.toLowerCase())));
  }

  /** A page of the tenant's listeners, kept for their lookups by id. */
  async page(limit: number, offset: number): Promise<ListenerReadModel[]> {
    const listeners = await this.repository.findPage(limit, offset);
    for (const listener of listeners) this.byId.prime(listener.id, listener);
    return listeners;
  }
}
