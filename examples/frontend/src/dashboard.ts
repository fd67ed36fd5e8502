// The dashboard in a terminal: the newest deployments (optionally those whose name contains the first
// argument), the detail of the newest one, then every change to those deployments as it happens, until Ctrl-C
// (`--once`: no watching; `--refresh=<seconds>`: read the whole view again every so often instead, as a
// dashboard page that reloads does, each read revalidated). Run it with `npm run example [-- <name filter>]
// [--once | --refresh=<seconds>]` against a running gateway (`npm start`), and change a deployment
// (`npm run import`) to see it.
import { setTimeout as sleep } from 'node:timers/promises';
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

/** What the dashboard shows: the newest deployments (of those whose name contains `nameContains`), the newest's detail. */
async function view(client: GatewayClient, nameContains: string | undefined): Promise<string[]> {
  const { tenant, deploymentsConnection: page } = await client.request(DashboardDeployments, {
    first: PAGE_SIZE, filter: nameContains ? { nameContains } : null,
  });
  const matching = nameContains ? ` whose name contains "${nameContains}"` : '';
  const lines = [`${page.totalCount} deployments of ${tenant.name}${matching}, newest first:`];
  for (const { node } of page.edges) lines.push(`  ${summaryLine(node)}`);
  if (page.pageInfo.hasNextPage) lines.push(`  … and ${page.totalCount - page.edges.length} more`);

  const newest = page.edges[0]?.node;
  if (newest) {
    const { deployment } = await client.request(DeploymentDetail, { id: newest.id });
    if (deployment) lines.push('', `Newest: ${detailLines(deployment).join('\n')}`);
  }
  return lines;
}

/** `--refresh=<seconds>`, or undefined. */
function refreshSeconds(): number | undefined {
  const value = process.argv.find((argument) => argument.startsWith('--refresh='))?.slice('--refresh='.length);
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!(seconds > 0)) throw new Error(`--refresh needs a number of seconds (got "${value}")`);
  return seconds;
}

async function main(): Promise<void> {
  const client = new GatewayClient(readSettings());
  const watching = !process.argv.includes('--once');
  const refresh = refreshSeconds();
  const nameContains = process.argv.slice(2).find((argument) => !argument.startsWith('--'));
  console.log((await view(client, nameContains)).join('\n'));
  if (!watching) return;

  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  if (refresh !== undefined) {
    console.log(`\nRefreshing every ${refresh} s (Ctrl-C to stop)…`);
    for (let round = 1; !stop.signal.aborted; round += 1) {
      await sleep(refresh * 1000, undefined, { signal: stop.signal }).catch(() => undefined);
      if (stop.signal.aborted) break;
      const { notModified, fetched } = client.cache;
      const lines = await view(client, nameContains);
      const unchanged = client.cache.notModified - notModified;
      const reads = unchanged + client.cache.fetched - fetched;
      console.log(`\n${lines.join('\n')}\nRefresh ${round}: ${unchanged} of ${reads} reads unchanged (304 Not Modified)`);
    }
    return;
  }
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
