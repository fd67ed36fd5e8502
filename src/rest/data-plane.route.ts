// The data planes' REST routes (docs/rest.md#data-planes). These paths are ours, not the original's: the
// original's data plane talks to it by means its specification does not show. Each runs the handler its
// GraphQL mutation runs (revisions/lifecycle/data-plane-mutations.graphql.ts) with the body as the door
// validated it, and answers ids and lease times from what the handler returned, not records: a key of several
// tenants may call them without naming one, and then has no tenant to read records in.
import { MAX_REVISION_LOG_LINES, MAX_RUNTIME_LOG_LINES, type RevisionClaim } from '../modules/revisions/lifecycle/data-plane-writer.ts';
import { LOG_PHASES } from '../modules/revisions/lifecycle/revision-log-line.entity.ts';
import {
  checkClaim, checkDeploymentReport, checkLogAppend, checkStatusReport, linesOfAppend, type LogAppendBody,
} from '../modules/revisions/lifecycle/data-plane-request-schema.ts';
import {
  appendRevisionLogsIn, claimRevisionsIn, reportDeploymentStatusIn, reportRevisionStatusIn,
} from '../modules/revisions/lifecycle/data-plane-mutations.graphql.ts';
import type { DeploymentStatus, RevisionStatus } from '../modules/deployments/deployment-enums.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { isoDateTime } from '../graphql/iso-date-time.ts';
import { archiveUrlFor } from '../modules/storage/source-archive.graphql.ts';
import { DEPLOYMENT_NOT_FOUND, deploymentIdParameter } from './deployments.route.ts';
import { dataPlaneResponseSchema } from './response-schemas.ts';
import type { RestRoute } from './rest-route.ts';

/** A time as the answers write it (the DateTime scalar's text), or null. */
const timeOf = (time: Date | null) => (time === null ? null : isoDateTime(time));

const revisionIdParameter = { name: 'revision_id', in: 'path', kind: 'uuid', description: 'ID of the claimed revision.' } as const;
const REVISION_NOT_FOUND = '`Revision ID <revision_id> not found.`: none of the key\'s tenants has that revision.';
const LEASE_LOST = 'The lease sent is not the revision\'s (it lapsed, or another claim holds it: stop working on it; `status` says where the revision is now)';
const LEASE_CONFLICT = `${LEASE_LOST}, `
  + 'or the status cannot follow the revision\'s (the message names both; out of a final status it says the revision has ended: only the final report sent again is answered, `applied: false`).';

/**
 * A claim's lease as the answer shows it: with the archive's download URL and the image's pull grant, which
 * GraphQL's RevisionLease fields give from the same functions.
 */
const leaseOf = async (ctx: GraphQLContext, lease: RevisionClaim) => {
  const imagePull = ctx.registry?.pullGrant(lease.tenantId, lease.deploymentId, lease.imageUri) ?? null;
  return {
    revision_id: lease.revisionId, deployment_id: lease.deploymentId, tenant_id: lease.tenantId, lease_id: lease.leaseId, lease_expires_at: isoDateTime(lease.expiresAt),
    source_archive_url: await archiveUrlFor(ctx, lease.sourceTarballPath),
    image_pull: imagePull && {
      token: imagePull.token, registry: imagePull.registry, repository: imagePull.repository, reference: imagePull.reference, expires_at: isoDateTime(imagePull.expiresAt),
    },
  };
};

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
  operationName: 'DataPlaneClaim',
  write: async (ctx, { body }) => Promise.all((await claimRevisionsIn(ctx, (body as { limit?: number | null }).limit ?? 1)).map((lease) => leaseOf(ctx, lease))),
  respond: (_data, _call, leases) => ({ status: 200, body: { leases } }),
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
  operationName: 'DataPlaneReportStatus',
  write: async (ctx, { values, body }) => {
    const report = body as { lease_id: string; status: RevisionStatus; message?: string | null };
    const revisionId = values.revision_id as string;
    const outcome = await reportRevisionStatusIn(ctx, { revisionId, leaseId: report.lease_id, status: report.status, message: report.message ?? null });
    return { revision_id: revisionId, status: report.status, applied: outcome.applied, lease_expires_at: timeOf(outcome.leaseExpiresAt) };
  },
  respond: (_data, _call, reported) => ({ status: 200, body: reported }),
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
  operationName: 'DataPlaneAppendLogs',
  write: async (ctx, { values, body }) => {
    const append = body as LogAppendBody;
    const outcome = await appendRevisionLogsIn(ctx, {
      revisionId: values.revision_id as string, leaseId: append.lease_id ?? null, phase: append.phase, firstLine: append.first_line, lines: linesOfAppend(append),
    });
    return { appended: outcome.appended, next_line: outcome.nextLine, lease_expires_at: timeOf(outcome.leaseExpiresAt) };
  },
  respond: (_data, _call, appended) => ({ status: 200, body: appended }),
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
  operationName: 'DataPlaneReportDeployment',
  write: async (ctx, { values, body }) => {
    const report = body as { status?: DeploymentStatus | null; custom_url?: string | null; image_version?: string | null };
    const deploymentId = values.deployment_id as string;
    await reportDeploymentStatusIn(ctx, {
      deploymentId, status: report.status ?? null,
      ...('custom_url' in report && { customUrl: report.custom_url }), ...('image_version' in report && { imageVersion: report.image_version }),
    });
    return deploymentId;
  },
  respond: (_data, _call, deploymentId) => ({ status: 200, body: { deployment_id: deploymentId } }),
  responseSchema: dataPlaneResponseSchema('DeploymentReported'),
  notFound: DEPLOYMENT_NOT_FOUND,
};

export const dataPlaneRoutes = [claimRevisionsRoute, reportRevisionStatusRoute, appendRevisionLogsRoute, reportDeploymentStatusRoute];
