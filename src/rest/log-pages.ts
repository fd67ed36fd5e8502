// What the CLI's log calls share (build_logs, and deploy_logs of a revision or of a deployment's running
// revision): the body `{order, limit, offset, level, query, start_time, end_time}` as the `logPage` field's
// arguments, and its answer `{"logs":[{id, message, timestamp, level, line}], "next_offset"}`
// (docs/decisions.md#runtime-logs).

/** The body as checked (data-plane-request-schema.ts: the times are Dates by then). */
interface LogsBody {
  order?: 'asc' | 'desc' | null;
  limit?: number | null;
  offset?: number | null;
  level?: string | null;
  query?: string | null;
  start_time?: Date | null;
  end_time?: Date | null;
}

/** The variables and arguments of a `logPage` selection (`$order`, `$limit`, `$offset`, `$filter`). */
export const LOG_PAGE_VARIABLES = '$order: RevisionLogOrder!, $limit: Int!, $offset: Int!, $filter: RevisionLogFilter';
export const logPageSelection = (phase: 'BUILD' | 'RUNTIME') =>
  `logPage(phase: ${phase}, order: $order, limit: $limit, offset: $offset, filter: $filter) { lines { id line message level timestamp } offset }`;

export function logPageVariables(body: unknown): Record<string, unknown> {
  const request = (body ?? {}) as LogsBody;
  return {
    order: (request.order ?? 'asc').toUpperCase(),
    limit: request.limit ?? 100,
    offset: request.offset ?? 0,
    filter: {
      level: request.level ?? null, query: request.query ?? null, startTime: request.start_time?.toISOString() ?? null, endTime: request.end_time?.toISOString() ?? null,
    },
  };
}

interface LogPage {
  lines: { id: string; line: number; message: string; level: string | null; timestamp: string }[];
  offset: number;
}

export const logPageAnswer = (page: LogPage | null, offset: number) => ({
  status: 200,
  body: {
    logs: (page?.lines ?? []).map(({ id, line, message, level, timestamp }) => ({ id, message, timestamp, level, line })),
    next_offset: page?.offset ?? offset,
  },
});

export const LOG_FILTERS_DESCRIPTION = 'Filters, each optional: `level` (case-insensitive; `WARNING` also matches `warn`, `ERROR` `err`, `CRITICAL` `crit` and `fatal`), '
  + '`query` (a case-insensitive piece of the message), `start_time` (inclusive) and `end_time` (exclusive), ISO 8601, UTC without a zone. '
  + 'Each entry has a stable `id`: following a log as the CLI does (`order` asc, `start_time` the newest entry\'s `timestamp`), the newest entry comes again; skip the ids seen.';
