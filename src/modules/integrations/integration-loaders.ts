// The integrations domain's DataLoaders, owned by the request's loaders (graphql/loaders.ts): integrations and
// repositories by id, the tenant's integrations, and the repositories of a whole list of integrations in one
// statement per selection.
import DataLoader from 'dataloader';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';
import { loaderTogether, type LoadTogether } from '../common/load-together.ts';
import { LoadersByArguments } from '../common/loaders-by-arguments.ts';
import type { SelectedColumns } from '../common/selection.ts';
import { IntegrationSchema } from './integration.entity.ts';
import type { IntegrationReadModel, SourceRepositoryReadModel } from './integration-read-model.ts';
import type { IntegrationQuery, IntegrationRepository } from './integration.repository.ts';
import { SourceRepositorySchema } from './source-repository.entity.ts';
import type { SourceRepositoryRepository } from './source-repository.repository.ts';

export class IntegrationLoaders {
  readonly byId: DataLoader<string, IntegrationReadModel | null>;
  readonly repositoryById: DataLoader<string, SourceRepositoryReadModel | null>;
  private readonly integrations: IntegrationRepository;
  private readonly repositories: SourceRepositoryRepository;
  private readonly listings = new LoadersByArguments<SourceRepositoryReadModel[]>();

  /** `together`: what the events of a subscription chunk will ask for (see common/load-together.ts). */
  constructor(em: TenantSafeEntityManager, together: LoadTogether) {
    this.integrations = em.getRepository(IntegrationSchema);
    this.repositories = em.getRepository(SourceRepositorySchema);
    this.byId = loaderTogether(together.integrationIds, (ids) => this.integrations.findRowsByIds(ids));
    this.repositoryById = new DataLoader((ids) => this.repositories.findRowsByIds(ids));
  }

  /** The tenant's integrations (see IntegrationRepository.list), kept for their repositories' `integration`. */
  async list(query: IntegrationQuery): Promise<IntegrationReadModel[]> {
    const integrations = await this.integrations.list(query);
    for (const integration of integrations) this.byId.prime(integration.id, integration);
    return integrations;
  }

  /** Per integration id, its repositories in the listing order, with the given columns only (see common/selection.ts). */
  repositoriesOf(columns: SelectedColumns): DataLoader<string, SourceRepositoryReadModel[]> {
    return this.listings.for([columns?.toSorted() ?? null], (ids) => this.repositories.findRowsOfIntegrations(ids, columns));
  }
}
