// The deployments' DataLoaders, owned by the request's loaders (graphql/loaders.ts): deployments by id, and the
// secrets and secret references of a whole page together (one statement for both relations).
import DataLoader from 'dataloader';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';
import { DeploymentSchema } from './deployment.entity.ts';
import type { DeploymentRow } from './deployment-row.ts';
import { secretsAndReferencesOf, type SecretsOfDeployment } from './secret-listing.ts';

export class DeploymentLoaders {
  readonly byId: DataLoader<string, DeploymentRow | null>;
  readonly secretsAndReferences: DataLoader<string, SecretsOfDeployment>;

  /** `mayReadSecrets`: whether secret ciphertexts are worth reading at all for this request. */
  constructor(em: TenantSafeEntityManager, mayReadSecrets: boolean) {
    const deployments = em.getRepository(DeploymentSchema);
    this.byId = new DataLoader((ids) => deployments.findRowsByIds(ids));
    this.secretsAndReferences = new DataLoader((ids) => secretsAndReferencesOf(em, ids, mayReadSecrets));
  }
}
