// The deployments' DataLoaders, owned by the request's loaders (graphql/loaders.ts): deployments by id, and the
// secrets and secret references of a whole page together (one statement for both relations), with their
// values decrypted when the selection asks for them and the caller may see them.
import DataLoader from 'dataloader';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';
import { loaderTogether, type LoadTogether } from '../../graphql/load-together.ts';
import type { SecretCipher } from '../secrets/secret-cipher.ts';
import { DeploymentSchema } from './deployment.entity.ts';
import type { DeploymentRow } from './deployment-row.ts';
import { secretsAndReferencesOf, type SecretsOfDeployment } from './secret-listing.ts';
import { revealValues } from './secret-values.ts';

export class DeploymentLoaders {
  readonly byId: DataLoader<string, DeploymentRow | null>;
  readonly secretsAndReferences: DataLoader<string, SecretsOfDeployment>;
  /**
   * As secretsAndReferences (the same rows, read by its statement), each secret with its value decrypted (null:
   * the caller may not see values).
   */
  readonly revealedSecrets: DataLoader<string, SecretsOfDeployment> | null;

  /** `revealWith`: the cipher, for a caller that may see secret values (whose ciphertexts are then worth reading). */
  constructor(em: TenantSafeEntityManager, revealWith: SecretCipher | null, together: LoadTogether) {
    const deployments = em.getRepository(DeploymentSchema);
    this.byId = new DataLoader((ids) => deployments.findRowsByIds(ids));
    this.secretsAndReferences = loaderTogether(together.deploymentIds, (ids) => secretsAndReferencesOf(em, ids, revealWith !== null));
    this.revealedSecrets = revealWith && loaderTogether(together.deploymentIds, async (ids) => {
      const listed = await this.secretsAndReferences.loadMany(ids);
      await revealValues(revealWith, listed.flatMap((page) => (page instanceof Error ? [] : page.secrets)));
      return listed;
    });
  }
}
