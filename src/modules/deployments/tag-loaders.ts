// The tags' DataLoaders, owned by the request's loaders (graphql/loaders.ts): keys and values by id, the
// values of a page of keys and the values of a page of deployments, one statement each.
import DataLoader from 'dataloader';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';
import { loaderTogether, type LoadTogether } from '../common/load-together.ts';
import { TagKeySchema, TagValueSchema } from './tag.entity.ts';
import type { TagKeyReadModel, TagValueReadModel } from './tag-read-model.ts';

export class TagLoaders {
  readonly keyById: DataLoader<string, TagKeyReadModel | null>;
  readonly valueById: DataLoader<string, TagValueReadModel | null>;
  readonly valuesOfKey: DataLoader<string, TagValueReadModel[]>;
  readonly valuesOfDeployment: DataLoader<string, TagValueReadModel[]>;

  /** `together`: what the events of a subscription chunk will ask for (see common/load-together.ts). */
  constructor(em: TenantSafeEntityManager, together: LoadTogether) {
    const keys = em.getRepository(TagKeySchema);
    const values = em.getRepository(TagValueSchema);
    this.keyById = new DataLoader((ids) => keys.findRowsByIds(ids));
    this.valueById = new DataLoader((ids) => values.findRowsByIds(ids));
    this.valuesOfKey = new DataLoader((ids) => values.valuesOfKeys(ids));
    this.valuesOfDeployment = loaderTogether(together.deploymentIds, (ids) => values.valuesOfDeployments(ids));
  }
}
