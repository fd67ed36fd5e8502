// An independent model of the deployment listing (docs/decisions.md#deployment-listing), computed in plain
// JavaScript over an import document, to compare the GraphQL answers with. Shares no code with src/.
import { buildDemoDocument } from '../../src/demo/demo-dataset.ts';

export type DemoDocument = ReturnType<typeof buildDemoDocument>;
export type DocDeployment = DemoDocument['deployments'][number];

/** The GraphQL `DeploymentFilter` input, with ids as raw UUIDs. */
export interface OracleFilter {
  nameContains?: string;
  statuses?: string[];
  remoteReconciled?: boolean;
  tagValueIds?: string[];
  imageVersion?: string;
  deploymentType?: string;
  ids?: string[];
}

/** Listing order: created_at descending, then id descending. */
export function compareListing(a: DocDeployment, b: DocDeployment): number {
  const byTime = Date.parse(b.created_at) - Date.parse(a.created_at);
  if (byTime !== 0) return byTime;
  const [x, y] = [a.id.toLowerCase(), b.id.toLowerCase()];
  return x === y ? 0 : x < y ? 1 : -1;
}

/** The ids the listing should return for `filter`, in order. */
export function expectedIds(deployments: readonly DocDeployment[], tags: DemoDocument['tags'], filter: OracleFilter = {}): string[] {
  const keyOfValue = new Map(tags.flatMap((t) => t.values.map((v) => [v.id, t.key] as const)));
  const wanted = filter.tagValueIds ?? [];
  const unknownTag = wanted.some((id) => !keyOfValue.has(id));
  const tagGroups = Map.groupBy(wanted, (id) => keyOfValue.get(id));
  const matches = (d: DocDeployment) =>
    (!filter.nameContains || d.name.toLowerCase().includes(filter.nameContains.toLowerCase()))
    && (!filter.statuses?.length || filter.statuses.includes(d.status!))
    && (filter.remoteReconciled == null || d.remote_reconciled === filter.remoteReconciled)
    && (!filter.imageVersion || d.image_version === filter.imageVersion)
    && (!filter.deploymentType || d.source_config.deployment_type!.toUpperCase() === filter.deploymentType)
    && (!filter.ids?.length || filter.ids.some((id) => id.toLowerCase() === d.id))
    && !unknownTag
    && [...tagGroups.values()].every((group) => group.some((id) => d.tag_value_ids.includes(id)));
  return deployments.filter(matches).sort(compareListing).map((d) => d.id);
}

/** A copy of `base` under a new id, name and creation time, without revisions or tags. */
export function extraDeployment(base: DocDeployment, id: string, name: string, createdAt: string): DocDeployment {
  return {
    ...structuredClone(base),
    id, name, created_at: createdAt, updated_at: createdAt,
    revisions: [], latest_revision_id: null as unknown as string, active_revision_id: null as unknown as string,
    tag_value_ids: [], secrets: [], secret_references: [],
  };
}
