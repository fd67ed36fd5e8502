// The request bodies of the data planes' REST routes (ours: docs/rest.md#data-planes) and of the CLI's
// build_logs call, declared as the rest of the REST door's bodies are (common/request-model.ts): validated
// before the handler runs, every problem at once, and published as OpenAPI components. The statuses are the
// original's Enum classes (components of their own, `enum` when wrong); `phase` and `order` are Literals.
// The limits of the requests are declared here once (DATA_PLANE_LIMITS): the models hold the REST bodies to
// them, the mutations their GraphQL inputs (data-plane-mutations.graphql.ts).
import { pydanticError } from '../../common/pydantic-errors.ts';
import {
  componentSchemasOf, enumOf, listOf, model, nested, oneOf, optional, ranged, required, string, uuid, type ModelValue, type RequestModel,
} from '../../common/request-model.ts';
import { valueError, type ValueProblem } from '../../deployments/writes/write-problems.ts';
import { validateModel } from '../../common/request-model-validation.ts';
import { DateTimeISOResolver } from 'graphql-scalars';
import { DEPLOYMENT_STATUSES, REVISION_STATUSES } from '../../deployments/deployment-enums.ts';
import { MAX_CLAIM, MAX_LOG_LINES, isStorableTime } from './data-plane-writer.ts';
import { LOG_PHASES } from './revision-log-line.entity.ts';
import { MAX_LOG_PAGE } from './revision-logs.graphql.ts';

/** The limits of the data planes' requests, on both doors. */
export const DATA_PLANE_LIMITS = {
  /** Revisions one claim takes. */
  claim: ranged('int', 1, MAX_CLAIM),
  /** The number of an append's first line. */
  firstLine: ranged('int', 0, 2 ** 31 - 1),
  /** Lines one append carries. */
  lines: { min: 1, max: MAX_LOG_LINES },
} as const;

/** Whether an append of `phase` lines names the lease of its claim: build and deploy lines do; runtime lines hold none. */
export const appendNeedsLease = (phase: string): boolean => phase !== 'runtime';

export const ClaimRequest = model('ClaimRequest', {
  limit: optional(DATA_PLANE_LIMITS.claim, `Most revisions to claim; default 1.`),
}, { description: 'How many queued revisions to claim.' });

export const RevisionStatusReport = model('RevisionStatusReport', {
  lease_id: required(uuid, 'The lease of the claim.'),
  status: required(enumOf('RevisionStatus', REVISION_STATUSES), 'The new status; the current one again renews the lease and changes nothing else.'),
  message: optional(string, 'What to say with it (a failure\'s reason).'),
}, { description: 'A revision\'s new status, from the data plane holding its lease.' });

const LogLine = model('LogLine', {
  message: required(string, 'The line, without its line break.'),
  level: optional(string, 'Its level (`info`, `error`, …).'),
  timestamp: optional(string, 'When it was written (ISO 8601); default: when it is stored.'),
});

export const LogAppend = model('LogAppend', {
  lease_id: optional(uuid, 'The lease of the claim: required for `build` and `deploy` lines; `runtime` lines need none (one sent is not checked).'),
  phase: required(oneOf(LOG_PHASES), 'Which log: `runtime` lines (the running service\'s) are taken once the revision is DEPLOYED.'),
  first_line: required(DATA_PLANE_LIMITS.firstLine, 'The number of the first line sent (lines are numbered from 0 per revision and phase).'),
  lines: required(listOf(nested(LogLine)), `${DATA_PLANE_LIMITS.lines.min} to ${DATA_PLANE_LIMITS.lines.max} lines, in order.`),
}, { description: 'Log lines of a revision: lines sent again (a retry) are stored once.' });

export const DeploymentStatusReport = model('DeploymentStatusReport', {
  status: optional(enumOf('DeploymentStatus', DEPLOYMENT_STATUSES), 'Its status.'),
  custom_url: optional(string, 'Where it answers; null clears it.'),
  image_version: optional(string, 'The image version it runs; null clears it.'),
}, { description: 'What the data plane running a deployment sees of it; only the keys sent change.' });

const logsRequestFields = {
  order: optional(oneOf(['asc', 'desc']), 'Oldest (asc, default) or newest line first.'),
  limit: optional(ranged('int', 1, MAX_LOG_PAGE), 'Lines per page; default 100.'),
  offset: optional(ranged('int', 0, 2 ** 31 - 1), 'Lines to skip from that end: 0, or the `next_offset` of the previous page.'),
  level: optional(string, 'Only lines of this level, case-insensitively (`WARNING` also matches `warn`, `ERROR` `err`, `CRITICAL` `crit` and `fatal`).'),
  query: optional(string, 'Only lines whose message contains this text, case-insensitively (no wildcards).'),
  start_time: optional(string, 'Only lines written at or after this time (ISO 8601; without a zone: UTC).'),
  end_time: optional(string, 'Only lines written before this time (ISO 8601; without a zone: UTC).'),
};

export const BuildLogsRequest = model('BuildLogsRequest', logsRequestFields, { description: 'A page of a revision\'s build log, as the original\'s CLI asks for it.' });

export const DeployLogsRequest = model('DeployLogsRequest', logsRequestFields, {
  description: 'A page of a revision\'s runtime log (the running service\'s lines), as the original\'s CLI asks for it (`deploy logs`).',
});

export type LogAppendBody = ModelValue<typeof LogAppend>;

type Check = (json: unknown) => { ok: true; value: unknown } | { ok: false; errors: ValueProblem[] };
const check = (bodyModel: RequestModel): Check => (json) => validateModel(bodyModel, json);

export const checkClaim = check(ClaimRequest);
export const checkStatusReport = check(RevisionStatusReport);
export const checkDeploymentReport = check(DeploymentStatusReport);

/** A logs request, with its times read (`start_time`, `end_time` become Dates, or a 422 naming the field). */
const checkLogsRequest = (bodyModel: RequestModel): Check => (json) => {
  const checked = check(bodyModel)(json);
  if (!checked.ok) return checked;
  const body = { ...(checked.value as Record<string, unknown>) };
  const errors: ValueProblem[] = [];
  for (const field of ['start_time', 'end_time'] as const) {
    const text = body[field];
    if (typeof text !== 'string') continue;
    const time = timeOfText(text);
    if (time) body[field] = time;
    else errors.push(valueError([field], text, 'must be an ISO 8601 date or date-time, in the years 1 to 9999'));
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: body };
};

export const checkBuildLogsRequest = checkLogsRequest(BuildLogsRequest);
export const checkDeployLogsRequest = checkLogsRequest(DeployLogsRequest);

/** A filter's time as the CLI sends it: ISO 8601, a date alone or a date-time, UTC when it names no zone. */
export function timeOfText(text: string): Date | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i.exec(text.trim());
  if (!match) return undefined;
  const [, date, time = '00:00:00', zone = 'Z'] = match;
  const parsed = new Date(`${date}T${time}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`);
  return Number.isNaN(parsed.getTime()) || !isStorableTime(parsed) ? undefined : parsed;
}

/**
 * A log append, with the number of lines checked too (the models have no list lengths). As pydantic does, a
 * wrong number of lines is listed beside the other fields' problems (lines is the last field: last).
 */
export const checkLogAppend: Check = (json) => {
  const checked = validateModel(LogAppend, json);
  const lines = checked.ok ? checked.value.lines : (json as { lines?: unknown } | null)?.lines;
  const length = Array.isArray(lines) ? linesLengthProblem(lines) : undefined;
  if (checked.ok) {
    // As pydantic lists a missing field: in the order of the fields (lease_id first).
    const lease = checked.value.lease_id == null && appendNeedsLease(checked.value.phase) ? [pydanticError.missing(['lease_id'], json)] : [];
    const times = timestampProblems(checked.value.lines);
    return lease.length > 0 || length || times.length > 0 ? { ok: false, errors: [...lease, ...times, ...(length ? [length] : [])] } : checked;
  }
  const body = json as { lease_id?: unknown; phase?: unknown } | null;
  const lease = typeof body === 'object' && body !== null && body.lease_id == null && appendNeedsLease(String(body.phase)) && !checked.errors.some((error) => error.loc[0] === 'lease_id')
    ? [pydanticError.missing(['lease_id'], json)] : [];
  const errors = [...lease, ...checked.errors, ...(length && !checked.errors.some((error) => error.loc[0] === 'lines') ? [length] : [])];
  return { ok: false, errors };
};

/**
 * Timestamps a log line may not carry: not a date-time at all, outside the years PostgreSQL stores, or not one
 * the GraphQL DateTime scalar reads (seconds required, a day its month has), in its words: the line is stored and
 * shown as that scalar's.
 */
function timestampProblems(lines: LogAppendBody['lines']): ValueProblem[] {
  return lines.flatMap(({ timestamp }, index) => {
    if (timestamp == null) return [];
    const time = new Date(timestamp);
    if (Number.isNaN(time.getTime()) || !ISO_DATE_TIME.test(timestamp) || !isStorableTime(time)) {
      return [valueError(['lines', index, 'timestamp'], timestamp, 'must be an ISO 8601 date-time with a time zone, in the years 1 to 9999')];
    }
    try {
      DateTimeISOResolver.parseValue(timestamp);
      return [];
    } catch (error) {
      return [valueError(['lines', index, 'timestamp'], timestamp, (error as Error).message.replace(/\.$/, ''))];
    }
  });
}

/** A valid append's lines as the writer takes them: the timestamps read (as the DateTime scalar reads them). */
export const linesOfAppend = (append: LogAppendBody) =>
  append.lines.map((line) => ({ message: line.message, level: line.level ?? null, timestamp: line.timestamp == null ? null : new Date(line.timestamp) }));

/** What the GraphQL DateTime scalar reads: a date, a time and a zone (`Z` or an offset). */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

function linesLengthProblem(lines: unknown[]): ValueProblem | undefined {
  const { min, max } = DATA_PLANE_LIMITS.lines;
  if (lines.length < min) return pydanticError.tooShort(['lines'], lines, min, lines.length);
  if (lines.length > max) return pydanticError.tooLong(['lines'], lines, max, lines.length);
  return undefined;
}

/** JSON Schemas of the bodies and the models inside them, by OpenAPI component name. */
export function dataPlaneRequestSchemas(): Record<string, Record<string, unknown>> {
  return componentSchemasOf([ClaimRequest, RevisionStatusReport, LogAppend, DeploymentStatusReport, BuildLogsRequest, DeployLogsRequest]);
}
