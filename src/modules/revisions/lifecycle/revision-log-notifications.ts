// What an append that stored log lines announces on REVISION_LOG_CHANNEL (data-plane-writer.ts, in the append's
// transaction, so it is heard once the lines are committed): ids and a line number, never the lines themselves.
// `<tenant id> <deployment id> <revision id> <phase> <number of the last line stored>`.
import { isUuid } from '../../common/uuid.ts';
import { LOG_PHASES, type LogPhase } from './revision-log-line.entity.ts';

export const REVISION_LOG_CHANNEL = 'revision_log';

/** New lines of one revision's log, up to `lastLine`, as the streams of that revision hear of them. */
export interface RevisionLogAppended {
  tenantId: string;
  deploymentId: string;
  revisionId: string;
  phase: LogPhase;
  lastLine: number;
}

/** The announcement, or undefined for a payload that is not one (never from our appends; ignored). */
export function parseLogAppended(payload: string): RevisionLogAppended | undefined {
  const [tenantId, deploymentId, revisionId, phase, lastLine, ...rest] = payload.split(' ');
  if (rest.length > 0 || !tenantId || !deploymentId || !revisionId || !phase || !lastLine) return undefined;
  if (![tenantId, deploymentId, revisionId].every(isUuid) || !(LOG_PHASES as readonly string[]).includes(phase) || !/^\d+$/.test(lastLine)) return undefined;
  return { tenantId: tenantId.toLowerCase(), deploymentId: deploymentId.toLowerCase(), revisionId: revisionId.toLowerCase(), phase: phase as LogPhase, lastLine: Number(lastLine) };
}
