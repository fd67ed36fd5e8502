// What the CLI's log calls share (build_logs, and deploy_logs of a revision or of a deployment's running
// revision): the body `{order, limit, offset, level, query, start_time, end_time}` as the `logPage` field's
// arguments, and its answer `{"logs":[{id, message, timestamp, level, line}], "next_offset"}`
// (docs/decisions.md#runtime-logs); and the route of one revision's log, which both kinds have.
import { DEPLOYMENT_NOT_FOUND, deploymentIdParameter, deploymentNotFound } from './deployments.route.ts';
import { dataPlaneResponseSchema } from './response-schemas.ts';
import type { BodyCheck, RestRoute } from './rest-route.ts';

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

export const revisionNotFound = (id: unknown) => ({ status: 404, body: { detail: `Revision ID ${String(id)} not found.` } });

/** The deployment id, as the CLI passes it: as the project id. */
export const projectIdParameter = { ...deploymentIdParameter, description: 'ID of the deployment (the CLI passes it as the project id).' };

export interface RevisionLogRoute {
  /** The path's last part, which names the log: `build_logs`, `deploy_logs`. */
  log: 'build_logs' | 'deploy_logs';
  phase: 'BUILD' | 'RUNTIME';
  /** The GraphQL operation's name (metrics, traces). */
  operationName: string;
  summary: string;
  description: string;
  body: BodyCheck;
  /** Names the body's schema and the answer's in the OpenAPI document. */
  schemaPrefix: 'BuildLogs' | 'DeployLogs';
  bodyExample: Record<string, unknown>;
}

/** POST /v1/projects/{deployment_id}/revisions/{revision_id}/<log>: a page of one revision's log of that phase. */
export const revisionLogRoute = ({ log, phase, operationName, summary, description, body, schemaPrefix, bodyExample }: RevisionLogRoute): RestRoute => ({
  path: `/v1/projects/{deployment_id}/revisions/{revision_id}/${log}`,
  method: 'POST',
  operationId: `${log}_v1_projects__deployment_id__revisions__revision_id__${log}_post`,
  summary,
  description,
  tag: 'deployments',
  parameters: [projectIdParameter, { name: 'revision_id', in: 'path', kind: 'uuid', description: 'ID of the revision.' }],
  body,
  bodySchema: `${schemaPrefix}Request`,
  bodyExample,
  document: `query ${operationName}($id: ID!, $revisionId: ID!, ${LOG_PAGE_VARIABLES}) {
  deployment(id: $id) {
    revision(id: $revisionId) {
      ${logPageSelection(phase)}
    }
  }
}`,
  variables: ({ values, body: sent }) => ({ id: values.deployment_id, revisionId: values.revision_id, ...logPageVariables(sent) }),
  respond: (data, { values }) => {
    if (!data.deployment) return deploymentNotFound(values.deployment_id);
    if (!data.deployment.revision) return revisionNotFound(values.revision_id);
    return logPageAnswer(data.deployment.revision.logPage, 0);
  },
  responseSchema: dataPlaneResponseSchema(schemaPrefix),
  notFound: `${DEPLOYMENT_NOT_FOUND} \`Revision ID <revision_id> not found.\`: the deployment has no revision of that id.`,
});
