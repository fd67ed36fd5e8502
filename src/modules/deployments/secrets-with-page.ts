// A page of deployments whose selection shows their secrets or secret references has them read before the page
// is answered: one statement, as their loader reads them, after which each deployment's `secrets` and
// `secretReferences` answer at once (deployment-loaders.ts) instead of with a promise each.
import type { Selection } from '../common/selection.ts';
import type { DeploymentLoaders } from './deployment-loaders.ts';
import type { DeploymentReadModel } from './deployment-read-model.ts';
import { VALUE_COLUMN } from './secret-values.ts';

/** The relations of a deployment read with its page: what the page's Selection must say about. */
export const READ_WITH_PAGE = ['secrets', 'secretReferences'] as const;

/**
 * `page`: what the page shows of each deployment (its relations among READ_WITH_PAGE). `loaders`: asked for only
 * when the page shows either, so that most pages make no deployment loaders.
 */
export async function readSecretsWithPage(
  page: Selection, deployments: readonly DeploymentReadModel[], loaders: () => DeploymentLoaders,
): Promise<void> {
  const { secrets, secretReferences } = page.relations;
  if (deployments.length === 0 || (!secrets && !secretReferences)) return;
  const deploymentLoaders = loaders();
  // As `Deployment.secrets` decides for itself (secret.graphql.ts), for every `secrets` of the page at once.
  const revealValues = secrets !== undefined && deploymentLoaders.revealedSecrets !== null && (secrets.columns?.includes(VALUE_COLUMN) ?? true);
  await deploymentLoaders.readWithPage(deployments.map((deployment) => deployment.id), revealValues);
}
