// The data planes' REST routes (docs/rest.md#data-planes). These paths are ours, not the original's: the
// original's data plane talks to it by means its specification does not show. Each runs its GraphQL mutation
// (revisions/lifecycle/data-plane-mutations.graphql.ts) and answers ids and lease times, not records: a key of
// several tenants may call them without naming one, and then has no tenant to read records in.
import { MAX_REVISION_LOG_LINES, MAX_RUNTIME_LOG_LINES } from '../modules/revisions/lifecycle/data-plane-writer.ts';
import { LOG_PHASES } from '../modules/revisions/lifecycle/revision-log-line.entity.ts';
import {
  checkClaim, checkDeploymentReport, checkLogAppend, checkStatusReport, type LogAppendBody,
} from '../modules/revisions/lifecycle/data-plane-request-schema.ts';
import { DEPLOYMENT_NOT_FOUND, deploymentIdParameter } from './deployments.route.ts';
import { dataPlaneResponseSchema } from './response-schemas.ts';
import { REFUSED, refusalAnswer } from './refusal-answers.ts';
import type { RestRoute } from './rest-route.ts';

const revisionIdParameter = { name: 'revision_id', in: 'path', kind: 'uuid', description: 'ID of the claimed revision.' } as const;
const REVISION_NOT_FOUND = '`Revision ID <revision_id> not found.`: none of the key\'s tenants has that revision.';
const LEASE_LOST = 'The lease sent is not the revision\'s (it lapsed, or another claim holds it: stop working on it; `status` says where the revision is now)';
const LEASE_CONFLICT = `${LEASE_LOST}, `
  + 'or the status cannot follow the revision\'s (the message names both; out of a final status it says the revision has ended: only the final report sent again is answered, `applied: false`).';

interface ImagePull { token: string; registry: string; repository: string; reference: string; expiresAt: string }

const leaseOf = (lease: Record<string, string | null> & { imagePull: ImagePull | null }) => ({
  revision_id: lease.revisionId, deployment_id: lease.deploymentId, tenant_id: lease.tenantId, lease_id: lease.leaseId, lease_expires_at: lease.expiresAt,
  source_archive_url: lease.sourceArchiveUrl,
  image_pull: lease.imagePull && {
    token: lease.imagePull.token, registry: lease.imagePull.registry, repository: lease.imagePull.repository, reference: lease.imagePull.reference,
    expires_at: lease.imagePull.expiresAt,
  },
});

export const claimRevisionsRoute: RestRoute = {
  path: '/v2/data-plane/claims',
  method: 'POST',
  dataPlane: true,
  operationId: 'claim_revisions_v2_data_plane_claims_post',
  summary: 'Claim Revisions',
  description: 'Claims up to `limit` queued revisions of the key\'s tenants, oldest first, each now AWAITING_BUILD under a lease of the caller\'s. '
    + 'Each revision goes to one claim only, also when several data planes claim at once; a deployment rolls out one revision at a time. '
    + 'Read what to build with `GET /v2/deployments/{deployment_id}` (X-Tenant-Id: `tenant_id` for a key of several tenants); '
    + 'an internal_source revision\'s archive downloads from `source_archive_url` with a plain GET (signed, valid 30 to 60 minutes); '
    + 'an image pushed to this service\'s registry for the deployment pulls with `image_pull.token` (pull only, that repository only, 30 minutes).',
  tag: 'data plane',
  parameters: [],
  body: checkClaim,
  bodySchema: 'ClaimRequest',
  bodyExample: { limit: 1 },
  document: `mutation DataPlaneClaim($input: ClaimRevisionsInput!) {
  claimRevisions(input: $input) {
    leases { revisionId deploymentId tenantId leaseId expiresAt sourceArchiveUrl imagePull { token registry repository reference expiresAt } }
  }
}`,
  variables: ({ body }) => ({ input: { limit: (body as { limit?: number | null }).limit ?? 1 } }),
  respond: (data) => ({ status: 200, body: { leases: (data.claimRevisions.leases as Parameters<typeof leaseOf>[0][]).map(leaseOf) } }),
  responseSchema: dataPlaneResponseSchema('Claims'),
};

export const reportRevisionStatusRoute: RestRoute = {
  path: '/v2/data-plane/revisions/{revision_id}/status',
  method: 'POST',
  dataPlane: true,
  operationId: 'report_revision_status_v2_data_plane_revisions__revision_id__status_post',
  summary: 'Report Revision Status',
  description: 'Moves a claimed revision along its lifecycle and renews the lease; the status it already has renews the lease only (`applied: false`). '
    + 'DEPLOYED makes it the deployment\'s `active_revision_id`.',
  tag: 'data plane',
  parameters: [revisionIdParameter],
  body: checkStatusReport,
  bodySchema: 'RevisionStatusReport',
  bodyExample: { lease_id: '00000000-0000-0000-0000-000000000000', status: 'BUILDING' },
  document: `mutation DataPlaneReportStatus($input: ReportRevisionStatusInput!) {
  reportRevisionStatus(input: $input) {
    ${REFUSED} ... on LeaseLostError { status }
    ... on ReportRevisionStatusPayload { revisionId status applied leaseExpiresAt }
  }
}`,
  variables: ({ values, body }) => {
    const report = body as { lease_id: string; status: string; message?: string | null };
    return { input: { revisionId: values.revision_id, leaseId: report.lease_id, status: report.status, message: report.message ?? null } };
  },
  respond: (data) => {
    const result = data.reportRevisionStatus;
    return refusalAnswer(result) ?? {
      status: 200, body: { revision_id: result.revisionId, status: result.status, applied: result.applied, lease_expires_at: result.leaseExpiresAt },
    };
  },
  otherResponses: { 409: { description: LEASE_CONFLICT } },
  responseSchema: dataPlaneResponseSchema('StatusReported'),
  notFound: REVISION_NOT_FOUND,
};

export const appendRevisionLogsRoute: RestRoute = {
  path: '/v2/data-plane/revisions/{revision_id}/logs',
  method: 'POST',
  dataPlane: true,
  operationId: 'append_revision_logs_v2_data_plane_revisions__revision_id__logs_post',
  summary: 'Append Revision Logs',
  description: 'Appends build or deploy log lines of a claimed revision in progress, or runtime lines (the running service\'s) of a DEPLOYED revision. '
    + 'Lines are numbered from 0 per revision and phase by the data plane: lines sent again are stored once, and a gap is refused (409 with `expected_line`). '
    + 'A revision that has ended takes no build or deploy lines: send its last lines before its final report. '
    + `A revision keeps ${MAX_REVISION_LOG_LINES} build and deploy lines at most, together. Runtime lines need no \`lease_id\` and are not counted: `
    + `the newest ${MAX_RUNTIME_LOG_LINES} are kept, older ones deleted as new ones come.`,
  tag: 'data plane',
  parameters: [revisionIdParameter],
  body: checkLogAppend,
  bodySchema: 'LogAppend',
  bodyExample: { lease_id: '00000000-0000-0000-0000-000000000000', phase: LOG_PHASES[0], first_line: 0, lines: [{ message: 'Step 1/4 : FROM node:24' }] },
  document: `mutation DataPlaneAppendLogs($input: AppendRevisionLogsInput!) {
  appendRevisionLogs(input: $input) {
    ${REFUSED} ... on LeaseLostError { status } ... on RevisionEndedError { status } ... on RevisionNotRunningError { status }
    ... on LogLinesOutOfOrderError { expectedLine }
    ... on LogLineLimitError { limit stored }
    ... on AppendRevisionLogsPayload { appended nextLine leaseExpiresAt }
  }
}`,
  variables: ({ values, body }) => {
    const append = body as LogAppendBody;
    return {
      input: {
        revisionId: values.revision_id, leaseId: append.lease_id ?? null, phase: append.phase.toUpperCase(), firstLine: append.first_line,
        lines: append.lines.map((line) => ({ message: line.message, level: line.level ?? null, timestamp: line.timestamp ?? null })),
      },
    };
  },
  respond: (data) => {
    const result = data.appendRevisionLogs;
    return refusalAnswer(result) ?? { status: 200, body: { appended: result.appended, next_line: result.nextLine, lease_expires_at: result.leaseExpiresAt } };
  },
  otherResponses: {
    409: {
      description: `${LEASE_LOST}; `
        + 'or the revision has ended (`status`: its final status) and takes no more build or deploy lines; or runtime lines were sent for a revision that is not '
        + 'DEPLOYED (`status`: its status); or the lines would leave a gap (`expected_line` says where to start); '
        + `or their new lines would take the revision past ${MAX_REVISION_LOG_LINES} lines (\`line_limit\`, and \`lines_stored\`: the lines it has), and none was stored.`,
    },
  },
  responseSchema: dataPlaneResponseSchema('LogsAppended'),
  notFound: REVISION_NOT_FOUND,
};

export const reportDeploymentStatusRoute: RestRoute = {
  path: '/v2/data-plane/deployments/{deployment_id}/status',
  method: 'POST',
  dataPlane: true,
  operationId: 'report_deployment_status_v2_data_plane_deployments__deployment_id__status_post',
  summary: 'Report Deployment Status',
  description: 'Reports a deployment\'s `status`, `custom_url` (in `source_config`) and `image_version`; only the keys sent change.',
  tag: 'data plane',
  parameters: [deploymentIdParameter],
  body: checkDeploymentReport,
  bodySchema: 'DeploymentStatusReport',
  bodyExample: { status: 'READY', custom_url: 'https://hello-api.example.com' },
  document: `mutation DataPlaneReportDeployment($input: ReportDeploymentStatusInput!) {
  reportDeploymentStatus(input: $input) { ${REFUSED} ... on ReportDeploymentStatusPayload { deploymentId } }
}`,
  variables: ({ values, body }) => {
    const report = body as Record<string, unknown>;
    return {
      input: {
        deploymentId: values.deployment_id, status: report.status ?? null,
        ...('custom_url' in report && { customUrl: report.custom_url }), ...('image_version' in report && { imageVersion: report.image_version }),
      },
    };
  },
  respond: (data) => refusalAnswer(data.reportDeploymentStatus) ?? { status: 200, body: { deployment_id: data.reportDeploymentStatus.deploymentId } },
  responseSchema: dataPlaneResponseSchema('DeploymentReported'),
  notFound: DEPLOYMENT_NOT_FOUND,
};

export const dataPlaneRoutes = [claimRevisionsRoute, reportRevisionStatusRoute, appendRevisionLogsRoute, reportDeploymentStatusRoute];
