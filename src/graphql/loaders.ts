// One object per request owns every DataLoader, so nested fields of a whole page load in one query per
// relation, and nothing is cached beyond the request. All reads go through the tenant-scoped EntityManager.
import DataLoader from 'dataloader';
import type { TenantSafeEntityManager } from '../db/tenant-safe-entity-manager.ts';
import { alphabetical, compareAlphabetically } from '../modules/common/text-queries.ts';
import { TenantOwnedRepository } from '../modules/common/tenant-owned.repository.ts';
import { DeploymentSchema } from '../modules/deployments/deployment.entity.ts';
import type { DeploymentRow } from '../modules/deployments/deployment-row.ts';
import { secretsAndReferencesOf, type SecretsOfDeployment } from '../modules/deployments/secret-listing.ts';
import { RevisionLoaders } from '../modules/revisions/revision-loaders.ts';
import { TagKeySchema, TagValueSchema, type TagKey, type TagValue } from '../modules/deployments/tag.entity.ts';
import { IntegrationSchema, type Integration } from '../modules/integrations/integration.entity.ts';
import { loaderTogether, NOTHING_TOGETHER, type LoadTogether } from './load-together.ts';
import { SourceRepositorySchema, type SourceRepository } from '../modules/integrations/source-repository.entity.ts';

type ById<T> = DataLoader<string, T | null>;

const byIds = <T extends { id: string }>(repository: TenantOwnedRepository<T>): ById<T> =>
  new DataLoader((ids) => repository.findByIds(ids));

/** Node lookups: each id's object or null; a failed batch fails the lookup instead of looking like "not found". */
export async function loadNodes<T>(loader: DataLoader<string, T | null>, ids: readonly string[]): Promise<(T | null)[]> {
  const results = await loader.loadMany(ids);
  const failure = results.find((result) => result instanceof Error);
  if (failure) throw failure;
  return results as (T | null)[];
}

const byValueThenId = (a: TagValue, b: TagValue) => compareAlphabetically(a.value, b.value) || (a.id < b.id ? -1 : 1);

export class RequestLoaders {
  readonly deployment: ById<DeploymentRow>;
  readonly integration: ById<Integration>;
  readonly repository: ById<SourceRepository>;
  readonly tagKey: ById<TagKey>;
  readonly tagValue: ById<TagValue>;

  readonly secretsAndReferences: DataLoader<string, SecretsOfDeployment>;
  readonly tagValuesOfDeployment: DataLoader<string, TagValue[]>;
  readonly repositoriesOfIntegration: DataLoader<string, SourceRepository[]>;
  readonly valuesOfTagKey: DataLoader<string, TagValue[]>;
  /** The revisions domain's own loaders. */
  readonly revisions: RevisionLoaders;

  /**
   * `mayReadSecrets`: whether secret ciphertexts are worth reading at all for this request. `together`: what
   * the events of a subscription chunk will ask for one at a time (see load-together.ts); nothing for a request.
   */
  constructor(em: TenantSafeEntityManager, mayReadSecrets: boolean, together: LoadTogether = NOTHING_TOGETHER) {
    const tagValues = new TenantOwnedRepository<TagValue>(em, TagValueSchema);
    const repositories = em.getRepository(SourceRepositorySchema);

    const deployments = em.getRepository(DeploymentSchema);
    this.deployment = new DataLoader((ids) => deployments.findRowsByIds(ids));
    const integrations = em.getRepository(IntegrationSchema);
    this.integration = loaderTogether(together.integrationIds, (ids) => integrations.findByIds(ids));
    this.repository = byIds<SourceRepository>(repositories);
    this.tagKey = byIds(new TenantOwnedRepository<TagKey>(em, TagKeySchema));
    this.tagValue = byIds(tagValues);

    // Secrets and secret references arrive together (one statement for both relations of a whole page).
    this.secretsAndReferences = loaderTogether(together.deploymentIds, (ids) => secretsAndReferencesOf(em, ids, mayReadSecrets));
    this.revisions = new RevisionLoaders(em, together);
    this.valuesOfTagKey = new DataLoader((ids) => tagValues.findGroupedBy('tagKey', ids, [alphabetical('value'), { id: 'asc' }]));
    this.repositoriesOfIntegration = new DataLoader((ids) => repositories.findByIntegrations(ids));
    // The pivot table has no entity of its own; populate reads it with the values in one query per batch
    // (on references: the deployments themselves were read as lean rows).
    this.tagValuesOfDeployment = loaderTogether(together.deploymentIds, async (ids) => {
      const references = ids.map((id) => em.getReference(DeploymentSchema, id));
      await em.populate(references, ['tagValues']);
      return references.map((deployment) => deployment.tagValues.getItems().sort(byValueThenId));
    });
  }
}
