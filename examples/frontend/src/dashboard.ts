// The dashboard in a terminal: the newest deployments (optionally those whose name contains the first
// argument), the detail of the newest one, then every change to those deployments as it happens, until Ctrl-C
// (`--once`: no watching). Run it with `npm run example [-- <name filter>] [--once]` against a running gateway
// (`npm start`), and change a deployment (`npm run import`) to see it.
import { GatewayClient, GatewayError } from './gateway-client.ts';
import type { DeploymentDetailQuery, DeploymentSummaryFragment } from './gql/graphql.ts';
import { DashboardDeployments, DeploymentDetail, DeploymentUpdated } from './operations.ts';
import { readSettings } from './settings.ts';

const PAGE_SIZE = 10;

const when = (instant: string) => instant.slice(0, 16).replace('T', ' ');

function summaryLine(deployment: DeploymentSummaryFragment): string {
  const { status, sourceConfig, name, updatedAt } = deployment;
  return `${status.padEnd(17)} ${sourceConfig.deploymentType.padEnd(8)} ${name.padEnd(32)} updated ${when(updatedAt)}`;
}

function detailLines(deployment: NonNullable<DeploymentDetailQuery['deployment']>): string[] {
  const spec = deployment.sourceConfig.resourceSpec;
  const latest = deployment.revisionPage.resources[0];
  const revision = latest?.sourceRevisionConfig;
  const from = revision?.repoRef ? `${revision.repoRef}@${revision.repoCommitSha?.slice(0, 7) ?? '?'}` : revision?.imageUri ?? revision?.sourceTarballPath;
  return [
    `${deployment.name} (${deployment.uuid}), created ${when(deployment.createdAt)}`,
    `  source     ${deployment.source}${deployment.sourceConfig.repoUrl ? ` ${deployment.sourceConfig.repoUrl}` : ''}`,
    `  resources  cpu ${spec?.cpu ?? '-'}, memory ${spec?.memoryMb ?? '-'} MB, scale ${spec?.minScale ?? '-'} to ${spec?.maxScale ?? '-'}`,
    `  tags       ${deployment.tagValues.map((tag) => `${tag.tagKey.key}: ${tag.value}`).join(', ') || 'none'}`,
    `  revisions  ${deployment.revisionPage.totalCount}${latest ? `, latest ${latest.status}${from ? ` from ${from}` : ''}` : ''}`,
  ];
}

async function main(): Promise<void> {
  const client = new GatewayClient(readSettings());
  const watching = !process.argv.includes('--once');
  const nameContains = process.argv.slice(2).find((argument) => !argument.startsWith('--'));
  const { tenant, deploymentsConnection: page } = await client.request(DashboardDeployments, {
    first: PAGE_SIZE, filter: nameContains ? { nameContains } : null,
  });
  const matching = nameContains ? ` whose name contains "${nameContains}"` : '';
  console.log(`${page.totalCount} deployments of ${tenant.name}${matching}, newest first:`);
  for (const { node } of page.edges) console.log(`  ${summaryLine(node)}`);
  if (page.pageInfo.hasNextPage) console.log(`  … and ${page.totalCount - page.edges.length} more`);

  const newest = page.edges[0]?.node;
  if (newest) {
    const { deployment } = await client.request(DeploymentDetail, { id: newest.id });
    if (deployment) console.log(`\nNewest: ${detailLines(deployment).join('\n')}`);
  }
  if (!watching) return;

  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  console.log('\nWatching for changes (Ctrl-C to stop)…');
  try {
    for await (const { deploymentUpdated: change } of client.subscribe(DeploymentUpdated, { filter: nameContains ? { nameContains } : null }, stop.signal)) {
      console.log(`  ${change.kind.padEnd(7)} ${change.deployment ? summaryLine(change.deployment) : change.deploymentId}`);
    }
  } catch (error) {
    if (!stop.signal.aborted) throw error;
  }
}

/** What to do about the refusals a mismatch of trusted-documents settings causes. */
const HINTS: Record<string, string> = {
  TOO_MANY_SUBSCRIPTIONS: 'This key has as many live streams open as the gateway allows (SUBSCRIPTIONS_PER_KEY): close one, or run with --once.',
  PERSISTED_QUERY_REQUIRED: 'The gateway runs only trusted documents: run this with TRUSTED_DOCUMENTS=require too.',
  PERSISTED_QUERY_NOT_FOUND: "The gateway's manifest lacks this operation: start it with this example's src/gql/persisted-documents.json.",
};

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  for (const code of error instanceof GatewayError ? new Set(error.codes) : []) if (HINTS[code]) console.error(HINTS[code]);
  process.exit(1);
});
