// Reading a revision's log lines, for the CLI's build_logs call and the `logs` connection alike. Lines are
// numbered from 0 without gaps (appends refuse gaps), so a position in the log is a line number.
import type { EntityManager } from '@mikro-orm/postgresql';
import { RevisionLogLineSchema, type LogPhase } from './revision-log-line.entity.ts';

export interface LogLine {
  line: number;
  message: string;
  level: string | null;
  loggedAt: Date;
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

/** The lines of one revision's log in `range`, read with a tenant-scoped EntityManager. */
export async function readLogLines(em: EntityManager, revisionId: string, phase: LogPhase, range: LogRange): Promise<LogLine[]> {
  const line = { ...(range.after !== undefined && { $gt: range.after }), ...(range.before !== undefined && { $lt: range.before }) };
  const rows = await em.find(
    RevisionLogLineSchema,
    { revision: revisionId, phase, ...(Object.keys(line).length > 0 && { line }) },
    { orderBy: { line: range.order }, offset: range.skip, limit: range.take, fields: ['line', 'message', 'level', 'loggedAt'] },
  );
  return rows.map((row) => ({ line: row.line, message: row.message, level: row.level ?? null, loggedAt: row.loggedAt }));
}

/** How many lines the log has (the number the next line gets). */
export async function countLogLines(em: EntityManager, revisionId: string, phase: LogPhase): Promise<number> {
  return em.count(RevisionLogLineSchema, { revision: revisionId, phase });
}

/**
 * The fields of Revision that show log lines (revision-logs.graphql.ts): a read selecting one is tagged with the
 * tenant's log version too (runner/entity-tags.ts), every other read without it.
 */
export const LOG_LINE_FIELDS: ReadonlySet<string> = new Set(['logs', 'logPage']);
