// The filters of GET /v2/deployments/{id}/revisions (docs/decisions.md#revisions), shared by both doors:
// every field given narrows the list (AND); an empty list is no filter.
import type { FilterQuery } from '@mikro-orm/postgresql';
import type { RevisionStatus } from '../deployments/deployment-enums.ts';
import type { Revision } from './revision.entity.ts';

export interface RevisionFilter {
  /** Any of these statuses. */
  statuses?: readonly RevisionStatus[] | null;
  /** Revisions that came (true) or did not come (false) from reconciling with the remote. */
  remoteReconciled?: boolean | null;
}

export function revisionWhere(filter: RevisionFilter | null | undefined): FilterQuery<Revision> {
  const and: FilterQuery<Revision>[] = [];
  if (filter?.statuses?.length) and.push({ status: { $in: [...filter.statuses] } });
  if (filter?.remoteReconciled != null) and.push({ remoteReconciled: filter.remoteReconciled });
  return and.length === 0 ? {} : { $and: and };
}
