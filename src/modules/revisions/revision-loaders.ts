// The revisions domain's DataLoaders, owned by the request's loaders (graphql/loaders.ts). Nested lists take
// arguments (a filter, a slice), so there is one loader per distinct set of arguments within a request: every
// deployment of a page asking the same slice shares one batch, and so one statement.
import type { FilterQuery } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';
import { loaderTogether, NOTHING_TOGETHER, type LoadTogether } from '../common/load-together.ts';
import { LoadersByArguments } from '../common/loaders-by-arguments.ts';
import { RevisionSchema, type Revision } from './revision.entity.ts';
import type { RevisionRepository, RevisionSlice } from './revision.repository.ts';
import type { RevisionReadModel } from './revision-read-model.ts';

export class RevisionLoaders {
  readonly byId: DataLoader<string, RevisionReadModel | null>;
  private readonly repository: RevisionRepository;
  private readonly slices: LoadersByArguments<RevisionReadModel[]>;
  private readonly counts: LoadersByArguments<number>;

  /** `together`: what the events of a subscription chunk will ask for (see common/load-together.ts). */
  constructor(em: TenantSafeEntityManager, together: LoadTogether = NOTHING_TOGETHER) {
    this.repository = em.getRepository(RevisionSchema);
    this.slices = new LoadersByArguments((batch) => loaderTogether(together.deploymentIds, batch));
    this.counts = new LoadersByArguments((batch) => loaderTogether(together.deploymentIds, batch));
    this.byId = loaderTogether(together.revisionIds, (ids) => this.repository.findRowsByIds(ids));
  }

  /** Per deployment id, its revisions matching `where`, cut to `slice`. */
  slice(where: FilterQuery<Revision>, slice: RevisionSlice): DataLoader<string, RevisionReadModel[]> {
    return this.slices.for([where, slice], (ids) => this.repository.findSlicesOf(ids, where, slice));
  }

  /** Per deployment id, the number of its revisions matching `where`. */
  count(where: FilterQuery<Revision>): DataLoader<string, number> {
    return this.counts.for([where], (ids) => this.repository.countOf(ids, where));
  }
}
