// What a data plane's report is refused for, as the domain says it (GraphQL: typed results; REST: 409/404).
import type { RevisionStatus } from '../../deployments/deployment-enums.ts';
import { WriteRefusal } from '../../deployments/writes/write-problems.ts';
import { isFinal } from './revision-lifecycle.ts';

/** A key without the data plane's permission (GraphQL: FORBIDDEN; REST: 403 with it as `detail`). */
export const NOT_A_DATA_PLANE = 'This API key is not a data plane\'s: issue one with `npm run apikey -- create --reconcile`';

/**
 * The report breaks the state machine (revision-lifecycle.ts); nothing was changed. Out of a final status, the
 * message says the revision has ended: nothing follows it.
 */
export class InvalidTransition extends WriteRefusal {
  readonly revisionId: string;
  readonly from: RevisionStatus;
  readonly to: RevisionStatus;
  constructor(revisionId: string, from: RevisionStatus, to: RevisionStatus) {
    super(isFinal(from) ? `Revision ${revisionId} has ended (${from}): it cannot go to ${to}.` : `Revision ${revisionId} cannot go from ${from} to ${to}.`);
    this.revisionId = revisionId;
    this.from = from;
    this.to = to;
  }
}

/**
 * The lease sent is not the revision's (anymore): it lapsed and the revision was queued again or interrupted,
 * or another data plane holds it now. The data plane must stop working on the revision.
 */
export class LeaseLost extends WriteRefusal {
  readonly revisionId: string;
  readonly status: RevisionStatus;
  constructor(revisionId: string, status: RevisionStatus) {
    super(`The lease on revision ${revisionId} is not held by this report (the revision is ${status} now); stop working on it.`);
    this.revisionId = revisionId;
    this.status = status;
  }
}

/** Log lines must come in order: an append may repeat lines already stored, never leave a gap. */
export class LogLinesOutOfOrder extends WriteRefusal {
  readonly expectedLine: number;
  constructor(firstLine: number, expectedLine: number) {
    super(`The append starts at line ${firstLine}, after a gap: the next line expected is ${expectedLine}.`);
    this.expectedLine = expectedLine;
  }
}

/**
 * The revision has ended (a final status): it takes no more log lines, whatever lease is sent. Its last lines
 * come before its final report. The data plane must stop working on it.
 */
export class RevisionEnded extends WriteRefusal {
  readonly revisionId: string;
  readonly status: RevisionStatus;
  constructor(revisionId: string, status: RevisionStatus) {
    super(`Revision ${revisionId} has ended (${status}): it takes no more log lines.`);
    this.revisionId = revisionId;
    this.status = status;
  }
}

/** The append's new lines would take the revision's log (both phases together) past its limit; none was stored. */
export class LogLineLimit extends WriteRefusal {
  readonly limit: number;
  readonly stored: number;
  constructor(revisionId: string, limit: number, stored: number, fresh: number) {
    super(`Revision ${revisionId} has ${stored} log lines and keeps ${limit} at most: the ${fresh} new lines of this append would pass that, so none was stored.`);
    this.limit = limit;
    this.stored = stored;
  }
}

/** Runtime log lines come from a running revision: one that is DEPLOYED. Nothing was stored. */
export class RevisionNotRunning extends WriteRefusal {
  readonly revisionId: string;
  readonly status: RevisionStatus;
  constructor(revisionId: string, status: RevisionStatus) {
    super(`Revision ${revisionId} is ${status}, not DEPLOYED: only a deployed revision takes runtime log lines.`);
    this.revisionId = revisionId;
    this.status = status;
  }
}
