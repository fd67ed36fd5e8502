// The deployments' DataLoaders, owned by the request's loaders (graphql/loaders.ts): deployments by id, and the
// secrets and secret references of a whole page together (one statement for both relations), with their
// values decrypted when the selection asks for them and the caller may see them.
//
// A page whose selection asks for secrets or references has them read before it is answered (`readWithPage`):
// each deployment's fields then answer from what was read, at once. Through the loader, each of them was a
// promise (the loader's, the resolver's, graphql-jit's wait for it): four hundred for a page of 100 showing both.
import DataLoader from 'dataloader';
import type { TenantSafeEntityManager } from '../../db/tenant-safe-entity-manager.ts';
import { loaderTogether, type LoadTogether } from '../common/load-together.ts';
import type { SecretRevealer } from '../secrets/secret-revealer.ts';
import { DeploymentSchema } from './deployment.entity.ts';
import type { DeploymentReadModel, SecretReferenceReadModel, SecretReadModel } from './deployment-read-model.ts';
import { secretsAndReferencesOf, type SecretsOfDeployment } from './secret-listing.ts';
import { revealValues } from './secret-values.ts';
import type { WrittenDeployment } from './writes/deployment-writer.ts';

export class DeploymentLoaders {
  readonly byId: DataLoader<string, DeploymentReadModel | null>;
  readonly secretsAndReferences: DataLoader<string, SecretsOfDeployment>;
  /**
   * As secretsAndReferences (the same rows, read by its statement), each secret with its value decrypted (null:
   * the caller may not see values).
   */
  readonly revealedSecrets: DataLoader<string, SecretsOfDeployment> | null;

  /** The secrets and references read with their page, by deployment id, and whether their values were revealed. */
  readonly #withPage = new Map<string, { listed: SecretsOfDeployment; revealed: boolean }>();
  /** What this request's writes wrote, by deployment id: its answer reads none of it back. */
  readonly #written = new Map<string, Omit<WrittenDeployment, 'row'>>();

  /** `revealWith`: what decrypts, for a caller that may see secret values (whose ciphertexts are then worth reading). */
  constructor(em: TenantSafeEntityManager, revealWith: SecretRevealer | null, together: LoadTogether) {
    const deployments = em.getRepository(DeploymentSchema);
    this.byId = new DataLoader((ids) => deployments.findRowsByIds(ids));
    this.secretsAndReferences = loaderTogether(together.deploymentIds, (ids) => secretsAndReferencesOf(em, ids, revealWith !== null));
    this.revealedSecrets = revealWith && loaderTogether(together.deploymentIds, async (ids) => {
      const listed = await this.secretsAndReferences.loadMany(ids);
      await revealValues(revealWith, listed.flatMap((page) => (page instanceof Error ? [] : page.secrets)));
      return listed;
    });
  }

  /**
   * Reads the secrets and secret references of a page's deployments (one statement, as the loaders would),
   * with their values revealed when `revealValues` and the caller may see them.
   */
  async readWithPage(ids: readonly string[], revealValues: boolean): Promise<void> {
    const revealed = revealValues && this.revealedSecrets !== null;
    const listed = await (revealed ? this.revealedSecrets! : this.secretsAndReferences).loadMany(ids);
    // One that failed (the database gone) is left to the fields, which get the loader's error.
    ids.forEach((id, i) => {
      const ofDeployment = listed[i]!;
      if (!(ofDeployment instanceof Error)) this.#withPage.set(id, { listed: ofDeployment, revealed });
    });
  }

  /**
   * Takes a deployment as a write of this request left it (writes/deployment-writer.ts): what the write's answer
   * shows of it is then not read back; lists the write did not replace still are.
   */
  wrote({ row, ...lists }: WrittenDeployment): void {
    this.byId.clear(row.id).prime(row.id, row);
    this.#withPage.delete(row.id);
    this.#written.set(row.id, lists);
    this.secretsAndReferences.clear(row.id);
    this.revealedSecrets?.clear(row.id);
  }

  /** A deployment's secrets, values revealed when `revealValues` and the caller may see them: at once if read with its page. */
  secretsOf(id: string, revealValues: boolean): SecretReadModel[] | Promise<SecretReadModel[]> {
    const written = this.#written.get(id)?.secrets;
    if (written) return written;
    const revealed = revealValues && this.revealedSecrets !== null;
    const withPage = this.#withPage.get(id);
    if (withPage && (withPage.revealed || !revealed)) return withPage.listed.secrets;
    return (revealed ? this.revealedSecrets! : this.secretsAndReferences).load(id).then((listed) => listed.secrets);
  }

  /** A deployment's secret references: at once if read with its page. */
  referencesOf(id: string): SecretReferenceReadModel[] | Promise<SecretReferenceReadModel[]> {
    return this.#written.get(id)?.references ?? this.#withPage.get(id)?.listed.references ?? this.secretsAndReferences.load(id).then((listed) => listed.references);
  }
}
