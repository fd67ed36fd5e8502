// A page of deployments whose selection shows their secrets or secret references has them read before the page
// is answered: one statement, as their loader reads them, after which each deployment's `secrets` and
// `secretReferences` answer at once (deployment-loaders.ts) instead of with a promise each.
import type { GraphQLResolveInfo } from 'graphql';
import type { GraphQLContext } from '../../graphql/context.ts';
import { isSelected, selectedColumns } from '../../graphql/selected-columns.ts';
import type { DeploymentRow } from './deployment-row.ts';
import { VALUE_COLUMN } from './secret-values.ts';

/** `path`: from the resolver's field to the deployments of the page (`['resources']`, `['edges', 'node']`). */
export async function readSecretsWithPage(
  ctx: GraphQLContext, info: GraphQLResolveInfo, path: readonly string[], deployments: readonly DeploymentRow[],
): Promise<void> {
  if (deployments.length === 0) return;
  const secrets = [...path, 'secrets'];
  const showsSecrets = isSelected(info, secrets);
  if (!showsSecrets && !isSelected(info, [...path, 'secretReferences'])) return;
  const loaders = ctx.loaders.deployments;
  // As `Deployment.secrets` decides for itself (secret-values.ts), for every `secrets` of the page at once.
  const revealValues = showsSecrets && loaders.revealedSecrets !== null && (selectedColumns(info, secrets)?.includes(VALUE_COLUMN) ?? true);
  await loaders.readWithPage(deployments.map((deployment) => deployment.id), revealValues);
}
