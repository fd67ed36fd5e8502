// POST /v1/projects/{deployment_id}/revisions/{revision_id}/build_logs: a page of a revision's build log, as
// the original's CLI reads it while it waits for a remote build (shared/spec/original-write-side.md §6.5: the
// deployment id as the project id; body `{order, limit, offset}`; it reads `logs[].message` and `next_offset`)
// and in `deploy logs --type build` (with the filters of log-pages.ts).
// A read, though a POST: any key of the tenant may call it. It runs the revision's `logPage`.
import { checkBuildLogsRequest } from '../modules/revisions/lifecycle/data-plane-request-schema.ts';
import { DEPLOYMENT_NOT_FOUND, deploymentIdParameter, deploymentNotFound } from './deployments.route.ts';
import { LOG_FILTERS_DESCRIPTION, LOG_PAGE_VARIABLES, logPageAnswer, logPageSelection, logPageVariables } from './log-pages.ts';
import { dataPlaneResponseSchema } from './response-schemas.ts';
import type { RestRoute } from './rest-route.ts';

export const revisionNotFound = (id: unknown) => ({ status: 404, body: { detail: `Revision ID ${String(id)} not found.` } });

export const buildLogsRoute: RestRoute = {
  path: '/v1/projects/{deployment_id}/revisions/{revision_id}/build_logs',
  method: 'POST',
  operationId: 'build_logs_v1_projects__deployment_id__revisions__revision_id__build_logs_post',
  summary: 'Build Logs',
  description: 'A page of the revision\'s build log: `order` asc (oldest first, the default) or desc, `limit` lines (default 100), after skipping `offset` '
    + `from that end. \`next_offset\` is where the next page starts: tailing a running build, send it back as \`offset\` with asc. ${LOG_FILTERS_DESCRIPTION}`,
  tag: 'deployments',
  parameters: [{ ...deploymentIdParameter, description: 'ID of the deployment (the CLI passes it as the project id).' }, { name: 'revision_id', in: 'path', kind: 'uuid', description: 'ID of the revision.' }],
  body: checkBuildLogsRequest,
  bodySchema: 'BuildLogsRequest',
  bodyExample: { order: 'asc', limit: 50 },
  document: `query LegacyBuildLogs($id: ID!, $revisionId: ID!, ${LOG_PAGE_VARIABLES}) {
  deployment(id: $id) {
    revision(id: $revisionId) {
      ${logPageSelection('BUILD')}
    }
  }
}`,
  variables: ({ values, body }) => ({ id: values.deployment_id, revisionId: values.revision_id, ...logPageVariables(body) }),
  respond: (data, { values }) => {
    if (!data.deployment) return deploymentNotFound(values.deployment_id);
    if (!data.deployment.revision) return revisionNotFound(values.revision_id);
    return logPageAnswer(data.deployment.revision.logPage, 0);
  },
  responseSchema: dataPlaneResponseSchema('BuildLogs'),
  notFound: `${DEPLOYMENT_NOT_FOUND} \`Revision ID <revision_id> not found.\`: the deployment has no revision of that id.`,
};
