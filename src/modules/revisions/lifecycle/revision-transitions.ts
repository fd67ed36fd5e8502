// What the database's triggers announce on REVISION_TRANSITION_CHANNEL (the migration lifecycle), once per
// status change of a revision and per new QUEUED revision:
// `<tenant id> <deployment id> <revision id> <from status, or - for a new revision> <to status> <epoch ms>`.
import { isUuid } from '../../common/uuid.ts';
import { REVISION_STATUSES, type RevisionStatus } from '../../deployments/deployment-enums.ts';

export const REVISION_TRANSITION_CHANNEL = 'revision_transition';

/** One status change of a revision, as the subscribers of its deployment receive it. */
export interface RevisionTransition {
  tenantId: string;
  deploymentId: string;
  revisionId: string;
  /** Null for a revision just created. */
  from: RevisionStatus | null;
  to: RevisionStatus;
  /** The revision's `updated_at` as the change set it. */
  at: Date;
}

const isStatus = (value: string): value is RevisionStatus => (REVISION_STATUSES as readonly string[]).includes(value);

/** The transition, or undefined for a payload that is not one (never from our triggers; ignored). */
export function parseTransition(payload: string): RevisionTransition | undefined {
  const [tenantId, deploymentId, revisionId, from, to, epochMs, ...rest] = payload.split(' ');
  if (rest.length > 0 || !tenantId || !deploymentId || !revisionId || !from || !to || !epochMs) return undefined;
  if (![tenantId, deploymentId, revisionId].every(isUuid) || !isStatus(to) || (from !== '-' && !isStatus(from)) || !/^\d+$/.test(epochMs)) return undefined;
  return {
    tenantId: tenantId.toLowerCase(), deploymentId: deploymentId.toLowerCase(), revisionId: revisionId.toLowerCase(),
    from: from === '-' ? null : from as RevisionStatus, to, at: new Date(Number(epochMs)),
  };
}
