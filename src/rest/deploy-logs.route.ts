// The CLI's `deploy logs` (its default type, "deploy": the running service's own lines): POST
// /v1/projects/{deployment_id}/deploy_logs for the deployment's running revision (its active one), and
// /v1/projects/{deployment_id}/revisions/{revision_id}/deploy_logs for one revision. The body and the answer
// are build_logs' (log-pages.ts); the lines are the revision's runtime log (docs/decisions.md#runtime-logs).
// Reads, though POSTs: any key of the tenant may call them. They run the revision's `logPage(phase: RUNTIME)`.
import { MAX_RUNTIME_LOG_LINES } from '../modules/revisions/lifecycle/data-plane-writer.ts';
import { checkDeployLogsRequest } from '../modules/revisions/lifecycle/data-plane-request-schema.ts';
import { DEPLOYMENT_NOT_FOUND, deploymentNotFound } from './deployments.route.ts';
import {
  LOG_FILTERS_DESCRIPTION, LOG_PAGE_VARIABLES, logPageAnswer, logPageSelection, logPageVariables, projectIdParameter, revisionLogRoute,
} from './log-pages.ts';
import { dataPlaneResponseSchema } from './response-schemas.ts';
import type { RestRoute } from './rest-route.ts';

const PAGE = 'A page of the running service\'s log lines (runtime lines, as data planes append them once a revision is DEPLOYED): `order` asc (oldest first, '
  + 'the default) or desc, `limit` lines (default 100), after skipping `offset` from that end; `next_offset` is where the next page starts. '
  + `${LOG_FILTERS_DESCRIPTION} Only a revision's newest ${MAX_RUNTIME_LOG_LINES} runtime lines are kept.`;

export const deploymentDeployLogsRoute: RestRoute = {
  path: '/v1/projects/{deployment_id}/deploy_logs',
  method: 'POST',
  operationId: 'deploy_logs_v1_projects__deployment_id__deploy_logs_post',
  summary: 'Deploy Logs',
  description: `${PAGE} The lines are those of the deployment's active revision (the one serving traffic, \`active_revision_id\`); `
    + 'none (`"logs": []`) while it has none. An earlier revision\'s lines: the revision\'s own deploy_logs.',
  tag: 'deployments',
  parameters: [projectIdParameter],
  body: checkDeployLogsRequest,
  bodySchema: 'DeployLogsRequest',
  bodyExample: { limit: 100, order: 'desc' },
  document: `query LegacyDeployLogs($id: ID!, ${LOG_PAGE_VARIABLES}) {
  deployment(id: $id) {
    activeRevision {
      ${logPageSelection('RUNTIME')}
    }
  }
}`,
  variables: ({ values, body }) => ({ id: values.deployment_id, ...logPageVariables(body) }),
  respond: (data, { values, body }) => {
    if (!data.deployment) return deploymentNotFound(values.deployment_id);
    return logPageAnswer(data.deployment.activeRevision?.logPage ?? null, (body as { offset?: number | null } | undefined)?.offset ?? 0);
  },
  responseSchema: dataPlaneResponseSchema('DeployLogs'),
  notFound: DEPLOYMENT_NOT_FOUND,
};

export const revisionDeployLogsRoute = revisionLogRoute({
  log: 'deploy_logs',
  phase: 'RUNTIME',
  operationName: 'LegacyRevisionDeployLogs',
  summary: 'Revision Deploy Logs',
  description: `${PAGE} The lines are the revision's, whether it serves traffic or no longer does; a revision never DEPLOYED has none.`,
  body: checkDeployLogsRequest,
  schemaPrefix: 'DeployLogs',
  bodyExample: { limit: 100, order: 'desc' },
});

export const deployLogsRoutes = [deploymentDeployLogsRoute, revisionDeployLogsRoute];
