// POST /v1/projects/{deployment_id}/revisions/{revision_id}/build_logs: a page of a revision's build log, as
// the original's CLI reads it while it waits for a remote build (shared/spec/original-write-side.md §6.5: the
// deployment id as the project id; body `{order, limit, offset}`; it reads `logs[].message` and `next_offset`).
// A read, though a POST: any key of the tenant may call it. It runs the revision's `logPage`.
import { checkBuildLogsRequest } from '../modules/revisions/lifecycle/data-plane-request-schema.ts';
import { DEPLOYMENT_NOT_FOUND, deploymentIdParameter, deploymentNotFound } from './deployments.route.ts';
import { dataPlaneResponseSchema } from './response-schemas.ts';
import type { RestRoute } from './rest-route.ts';

interface BuildLogsBody {
  order?: 'asc' | 'desc' | null;
  limit?: number | null;
  offset?: number | null;
}

export const buildLogsRoute: RestRoute = {
  path: '/v1/projects/{deployment_id}/revisions/{revision_id}/build_logs',
  method: 'POST',
  operationId: 'build_logs_v1_projects__deployment_id__revisions__revision_id__build_logs_post',
  summary: 'Build Logs',
  description: 'A page of the revision\'s build log: `order` asc (oldest first, the default) or desc, `limit` lines (default 100), after skipping `offset` '
    + 'from that end. `next_offset` is where the next page starts: tailing a running build, send it back as `offset` with asc.',
  tag: 'deployments',
  parameters: [{ ...deploymentIdParameter, description: 'ID of the deployment (the CLI passes it as the project id).' }, { name: 'revision_id', in: 'path', kind: 'uuid', description: 'ID of the revision.' }],
  body: checkBuildLogsRequest,
  bodySchema: 'BuildLogsRequest',
  bodyExample: { order: 'asc', limit: 50 },
  document: `query LegacyBuildLogs($id: ID!, $revisionId: ID!, $order: RevisionLogOrder!, $limit: Int!, $offset: Int!) {
  deployment(id: $id) {
    revision(id: $revisionId) {
      logPage(phase: BUILD, order: $order, limit: $limit, offset: $offset) { lines { line message level timestamp } offset }
    }
  }
}`,
  variables: ({ values, body }) => {
    const request = (body ?? {}) as BuildLogsBody;
    return { id: values.deployment_id, revisionId: values.revision_id, order: (request.order ?? 'asc').toUpperCase(), limit: request.limit ?? 100, offset: request.offset ?? 0 };
  },
  respond: (data, { values }) => {
    if (!data.deployment) return deploymentNotFound(values.deployment_id);
    const revision = data.deployment.revision as { logPage: { lines: { line: number; message: string; level: string | null; timestamp: string }[]; offset: number } } | null;
    if (!revision) return { status: 404, body: { detail: `Revision ID ${String(values.revision_id)} not found.` } };
    const logs = revision.logPage.lines.map(({ line, message, level, timestamp }) => ({ message, timestamp, level, line }));
    return { status: 200, body: { logs, next_offset: revision.logPage.offset } };
  },
  responseSchema: dataPlaneResponseSchema('BuildLogs'),
  notFound: `${DEPLOYMENT_NOT_FOUND} \`Revision ID <revision_id> not found.\`: the deployment has no revision of that id.`,
};
