// Reading a revision's log lines, for the CLI's build_logs and deploy_logs calls and the `logs` connection alike.
// Lines are numbered from 0 by the data plane (appends refuse gaps), so a position in the log is a line number;
// runtime logs keep their newest lines only, so theirs may start above 0. The filters are the CLI's (docs/
// decisions.md#runtime-logs): a level, a search string, a time window.
import { raw, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { escapeLike } from '../../common/text-queries.ts';
import { RevisionLogLineSchema, type LogPhase, type RevisionLogLine } from './revision-log-line.entity.ts';

export interface LogLine {
  /** The line's own id: stable and unique across revisions and phases (the CLI's `--follow` dedups by it). */
  id: string;
  line: number;
  message: string;
  level: string | null;
  loggedAt: Date;
}

/** Which lines a read shows; every part given must hold. */
export interface LogFilter {
  /** The level, case-insensitively, with its usual other names (WARNING also matches `warn`). */
  level?: string | null;
  /** A piece of the message, case-insensitively (no wildcards: `%` and `_` are themselves). */
  query?: string | null;
  /** Lines written at or after this time (inclusive: following, the CLI sends the newest line's time back). */
  startTime?: Date | null;
  /** Lines written before this time (exclusive: consecutive windows do not overlap). */
  endTime?: Date | null;
}

export interface LogRange {
  /** Lines after this number (exclusive); undefined: from the first. */
  after?: number;
  /** Lines before this number (exclusive); undefined: to the last. */
  before?: number;
  order: 'asc' | 'desc';
  /** Lines to pass over first, in `order`. */
  skip: number;
  take: number;
}

/** Other names data planes use for the CLI's levels (stored levels are free text). */
const LEVEL_NAMES: Record<string, string[]> = {
  warning: ['warning', 'warn'],
  error: ['error', 'err'],
  critical: ['critical', 'crit', 'fatal'],
};

/** The stored levels (lower case) a level filter matches. */
export function levelNames(level: string): string[] {
  const name = level.trim().toLowerCase();
  return LEVEL_NAMES[name] ?? [name];
}


function whereOf(revisionId: string, phase: LogPhase, filter: LogFilter, line?: Record<string, number>): FilterQuery<RevisionLogLine> {
  const loggedAt = { ...(filter.startTime && { $gte: filter.startTime }), ...(filter.endTime && { $lt: filter.endTime }) };
  return {
    revision: revisionId,
    phase,
    ...(line && Object.keys(line).length > 0 && { line }),
    ...(filter.level != null && { [raw((alias) => `lower(${alias}.level)`)]: { $in: levelNames(filter.level) } }),
    ...(filter.query != null && filter.query !== '' && { message: { $ilike: `%${escapeLike(filter.query)}%` } }),
    ...(Object.keys(loggedAt).length > 0 && { loggedAt }),
  } as FilterQuery<RevisionLogLine>;
}

/** The lines of one revision's log in `range` that pass `filter`, read with a tenant-scoped EntityManager. */
export async function readLogLines(em: EntityManager, revisionId: string, phase: LogPhase, range: LogRange, filter: LogFilter = {}): Promise<LogLine[]> {
  const line = { ...(range.after !== undefined && { $gt: range.after }), ...(range.before !== undefined && { $lt: range.before }) };
  const rows = await em.find(
    RevisionLogLineSchema,
    whereOf(revisionId, phase, filter, line),
    { orderBy: { line: range.order }, offset: range.skip, limit: range.take, fields: ['id', 'line', 'message', 'level', 'loggedAt'] },
  );
  return rows.map((row) => ({ id: row.id, line: row.line, message: row.message, level: row.level ?? null, loggedAt: row.loggedAt }));
}

/** Whether the log has a line passing `filter` at or before `atMost`, or at or after `atLeast`. */
export async function hasLogLine(em: EntityManager, revisionId: string, phase: LogPhase, filter: LogFilter, at: { atMost: number } | { atLeast: number }): Promise<boolean> {
  const line: Record<string, number> = 'atMost' in at ? { $lte: at.atMost } : { $gte: at.atLeast };
  return (await em.findOne(RevisionLogLineSchema, whereOf(revisionId, phase, filter, line), { fields: ['id'] })) !== null;
}

/**
 * The fields of Revision that show log lines (revision-logs.graphql.ts): a read selecting one is tagged with the
 * tenant's log version too (runner/entity-tags.ts), every other read without it.
 */
export const LOG_LINE_FIELDS: ReadonlySet<string> = new Set(['logs', 'logPage']);
