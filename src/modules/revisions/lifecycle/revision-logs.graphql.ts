// A revision's build, deploy and runtime logs, as a Relay connection and offset pages on Revision (the REST
// door's build_logs and deploy_logs read the same lines: rest/build-logs.route.ts, rest/deploy-logs.route.ts),
// with the CLI's filters, and the status message of its last report.
import { builder } from '../../../graphql/builder.ts';
import { badUserInput } from '../../../graphql/errors.ts';
import { connectionOf } from '../../../graphql/paging.ts';
import { RevisionRef } from '../revision.graphql.ts';
import { LOG_PHASES, type LogPhase } from './revision-log-line.entity.ts';
import { hasLogLine, readLogLines, type LogFilter, type LogLine } from './revision-logs.ts';

export const MAX_LOG_PAGE = 1_000;
const DEFAULT_LOG_PAGE = 100;

const PHASE_DESCRIPTIONS: Record<LogPhase, string> = {
  build: 'The build\'s log.',
  deploy: 'The rollout\'s log.',
  runtime: 'The running service\'s own log (the CLI\'s `deploy logs`), once the revision is DEPLOYED; its newest lines only are kept.',
};

export const LogPhaseEnum = builder.enumType('RevisionLogPhase', {
  description: 'Which of a revision\'s logs.',
  values: Object.fromEntries(LOG_PHASES.map((phase) => [phase.toUpperCase(), { value: phase, description: PHASE_DESCRIPTIONS[phase] }])) as Record<Uppercase<LogPhase>, { value: LogPhase; description: string }>,
});

export const LogLineRef = builder.objectRef<LogLine>('RevisionLogLine').implement({
  description: 'One line of a revision\'s log.',
  fields: (t) => ({
    id: t.field({ type: 'UUID', description: 'The line\'s own id, unique across revisions and logs (what a client following a log dedups by).', resolve: (line) => line.id }),
    line: t.exposeInt('line', { description: 'Its number in the log, from 0.' }),
    message: t.exposeString('message', { description: 'The line.' }),
    level: t.exposeString('level', { nullable: true, description: 'Its level, as the data plane said it.' }),
    timestamp: t.expose('loggedAt', { type: 'DateTime', description: 'When it was written.' }),
  }),
});

interface LogPage {
  lines: LogLine[];
  offset: number;
}

const LogPageRef = builder.objectRef<LogPage>('RevisionLogPage').implement({
  description: 'An offset page of a revision\'s log (the shape of the REST build_logs answer).',
  fields: (t) => ({
    lines: t.field({ type: [LogLineRef], description: 'The lines of the page, in the order asked for.', resolve: (page) => page.lines }),
    offset: t.exposeInt('offset', { description: 'Offset of the next page: the request offset plus the number returned (where to go on tailing from).' }),
  }),
});

const LogOrderEnum = builder.enumType('RevisionLogOrder', {
  description: 'Which end of a log a page counts from.',
  values: { ASC: { value: 'asc', description: 'Oldest line first.' }, DESC: { value: 'desc', description: 'Newest line first.' } } as const,
});

export const LogFilterInput = builder.inputType('RevisionLogFilter', {
  description: 'Which lines of a log to show (the CLI\'s `deploy logs` options); every field given must hold.',
  fields: (t) => ({
    level: t.string({ description: 'Only lines of this level, case-insensitively (`WARNING` also matches `warn`, `ERROR` `err`, `CRITICAL` `crit` and `fatal`).' }),
    query: t.string({ description: 'Only lines whose message contains this text, case-insensitively (no wildcards).' }),
    startTime: t.field({ type: 'DateTime', description: 'Only lines written at or after this time (inclusive: follow a log by sending its newest line\'s `timestamp`, dedup by `id`).' }),
    endTime: t.field({ type: 'DateTime', description: 'Only lines written before this time (exclusive).' }),
  }),
});

/** The filter as the reads take it. */
export const logFilterOf = (filter: { level?: string | null; query?: string | null; startTime?: Date | null; endTime?: Date | null } | null | undefined): LogFilter => ({
  level: filter?.level ?? null, query: filter?.query ?? null, startTime: filter?.startTime ?? null, endTime: filter?.endTime ?? null,
});

const filterArgument = { type: LogFilterInput, description: 'Only the lines matching every field given.' } as const;

/** Whether every line from 0 to the last is shown: then the line a cursor names is there, and so are those before it. */
const gapless = (phase: LogPhase, filter: LogFilter) => phase !== 'runtime' && Object.values(filter).every((value) => value == null);

const CURSOR_PREFIX = 'RevisionLogLine:';
const cursorOf = (line: number) => Buffer.from(`${CURSOR_PREFIX}${line}`).toString('base64url');
function lineOfCursor(cursor: string, argument: string): number {
  const text = Buffer.from(cursor, 'base64url').toString();
  const line = text.startsWith(CURSOR_PREFIX) ? Number(text.slice(CURSOR_PREFIX.length)) : Number.NaN;
  if (!Number.isSafeInteger(line) || line < 0) throw badUserInput(argument, 'is not a cursor of this log');
  return line;
}

// The fields that show log lines are listed in LOG_LINE_FIELDS (revision-logs.ts): their reads' tags include the
// tenant's log version.
builder.objectFields(RevisionRef, (t) => ({
  statusMessage: t.exposeString('status_message', {
    nullable: true, description: 'What the data plane said with the last status (a failure\'s reason, say), or why the service changed it (superseded, lease lapsed).',
  }),
  logPage: t.field({
    type: LogPageRef,
    description: `The revision's build, deploy or runtime log in offset pages of up to ${MAX_LOG_PAGE} lines (REST: POST /v1/projects/{deployment_id}/revisions/{revision_id}/build_logs, `
      + 'and deploy_logs for the runtime log).',
    args: {
      filter: t.arg(filterArgument),
      phase: t.arg({ type: LogPhaseEnum, required: true, defaultValue: 'build', description: 'Which log.' }),
      order: t.arg({ type: LogOrderEnum, required: true, defaultValue: 'asc', description: 'Oldest or newest line first.' }),
      limit: t.arg.int({ required: true, defaultValue: DEFAULT_LOG_PAGE, description: `Lines per page, 1 to ${MAX_LOG_PAGE}.` }),
      offset: t.arg.int({ required: true, defaultValue: 0, description: 'Lines to skip from that end: 0, or the `offset` of the previous page.' }),
    },
    resolve: async (revision, { phase, order, limit, offset, filter }, ctx) => {
      if (limit < 1 || limit > MAX_LOG_PAGE) throw badUserInput('limit', `must be between 1 and ${MAX_LOG_PAGE}; got ${limit}`);
      if (offset < 0) throw badUserInput('offset', `must be 0 or more; got ${offset}`);
      const lines = await readLogLines(ctx.em(), revision.id, phase, { order, skip: offset, take: limit }, logFilterOf(filter));
      return { lines, offset: offset + lines.length };
    },
  }),
  logs: t.connection(
    {
      type: LogLineRef,
      description: `The revision's build, deploy or runtime log, oldest line first, as its data plane appended it, as a Relay connection (cursors stay valid while lines are appended: tail a running build with \`after\`). Pages of up to ${MAX_LOG_PAGE} lines; default ${DEFAULT_LOG_PAGE}.`,
      args: { phase: t.arg({ type: LogPhaseEnum, required: true, defaultValue: 'build', description: 'Which log.' }), filter: t.arg(filterArgument) },
      resolve: async (revision, args, ctx) => {
        const { first, last } = args;
        if (first != null && last != null) throw badUserInput('last', 'give either first or last, not both');
        for (const [name, value] of [['first', first], ['last', last]] as const) {
          if (value != null && (value < 1 || value > MAX_LOG_PAGE)) throw badUserInput(name, `must be between 1 and ${MAX_LOG_PAGE}; got ${value}`);
        }
        const after = args.after ? lineOfCursor(args.after, 'after') : undefined;
        const before = args.before ? lineOfCursor(args.before, 'before') : undefined;
        const fromEnd = last != null;
        const count = last ?? first ?? DEFAULT_LOG_PAGE;
        const { phase } = args;
        const filter = logFilterOf(args.filter);
        const em = ctx.em();
        const lines = await readLogLines(em, revision.id, phase, { after, before, order: fromEnd ? 'desc' : 'asc', skip: 0, take: count + 1 }, filter);
        const more = lines.length > count;
        const page = lines.slice(0, count);
        if (fromEnd) page.reverse();
        // Whether lines lie on the far side of the cursor: a filter, and a runtime log's deleted old lines, leave gaps.
        const beyondFarSide = fromEnd
          ? before !== undefined && await hasLogLine(em, revision.id, phase, filter, { atLeast: before })
          : after !== undefined && (gapless(phase, filter) || await hasLogLine(em, revision.id, phase, filter, { atMost: after }));
        return connectionOf(page, (line) => cursorOf(line.line), { from: fromEnd ? 'end' : 'start' }, more, beyondFarSide);
      },
    },
    { name: 'RevisionLogConnection', description: 'A slice of a revision\'s log with cursors for its neighbours.' },
    { name: 'RevisionLogEdge', description: 'A log line with its cursor.' },
  ),
}));
