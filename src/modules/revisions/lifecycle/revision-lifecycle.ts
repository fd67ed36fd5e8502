// The revision state machine (docs/decisions.md#revision-lifecycle), written once: every report of a data plane
// and every move the service makes on its own is checked against it.
import type { RevisionStatus } from '../../deployments/deployment-enums.ts';

/** A data plane works on a revision in these; its lease can be lost in them. */
export const IN_PROGRESS = ['AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING'] as const satisfies readonly RevisionStatus[];

/** Nothing moves a revision out of these. */
export const FINAL = ['DEPLOYED', 'CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED', 'SKIPPED', 'INTERRUPTED'] as const satisfies readonly RevisionStatus[];

/** Where a claim takes a queued revision. */
export const CLAIMED: RevisionStatus = 'AWAITING_BUILD';

/**
 * What a data plane may report, from each status its revision can be in. A step may be skipped (an image needs
 * no build: AWAITING_BUILD to AWAITING_DEPLOY), never taken back. QUEUED leaves only by a claim, SKIPPED and a
 * lost lease's QUEUED or INTERRUPTED only by the service's own rules; CREATING and UNKNOWN (imported) never.
 */
export const REPORTABLE: Readonly<Partial<Record<RevisionStatus, readonly RevisionStatus[]>>> = {
  AWAITING_BUILD: ['BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED', 'CREATE_FAILED', 'BUILD_FAILED', 'INTERRUPTED'],
  BUILDING: ['AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED', 'BUILD_FAILED', 'INTERRUPTED'],
  AWAITING_DEPLOY: ['DEPLOYING', 'DEPLOYED', 'DEPLOY_FAILED', 'INTERRUPTED'],
  DEPLOYING: ['DEPLOYED', 'DEPLOY_FAILED', 'INTERRUPTED'],
};

/** Whether a data plane may move a revision from `from` to `to`. */
export const mayReport = (from: RevisionStatus, to: RevisionStatus): boolean => REPORTABLE[from]?.includes(to) ?? false;

export const isFinal = (status: RevisionStatus): boolean => (FINAL as readonly RevisionStatus[]).includes(status);
