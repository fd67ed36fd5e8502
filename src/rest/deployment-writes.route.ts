// The original's deployment writes (docs/rest.md#writes): POST /v2/deployments, PATCH and DELETE
// /v2/deployments/{deployment_id}, DELETE /v2/deployments (bulk), POST …/revisions/{revision_id}/redeploy,
// …/push-token and …/upload-url. The body is validated as FastAPI validates the original's models, then each
// runs the handler its GraphQL mutation runs, with that body as it is; an answer that shows the deployment
// reads it with its GraphQL query (the request's loaders already hold what the write wrote). A refusal becomes
// the original's status code and `detail` body (refusal-answers.ts).
import { validateCreateRequest, validatePatchRequest } from '../modules/deployments/writes/validate-write-request.ts';
import { MAX_BULK_DELETE } from '../modules/deployments/writes/deployment-writer.ts';
import {
  createDeploymentIn, deleteDeploymentIn, deleteDeploymentsIn, redeployRevisionIn, updateDeploymentIn,
} from '../modules/deployments/writes/deployment-mutations.graphql.ts';
import type { CreateRequest, PatchRequest } from '../modules/deployments/writes/write-requests.ts';
import { issuePushToken } from '../modules/registry/push-token.graphql.ts';
import { issueSourceUpload } from '../modules/storage/source-archive.graphql.ts';
import { isoDateTime } from '../graphql/iso-date-time.ts';
import { DEPLOYMENT_NOT_FOUND, deploymentAnswer, deploymentIdParameter, deploymentNotFound, recordWithEtag } from './deployments.route.ts';
import { ETAG_HEADER } from './openapi.ts';
import { legacyResponseSchema } from './response-schemas.ts';
import type { RestRoute, RouteCall } from './rest-route.ts';

const ifMatchOf = (call: RouteCall) => call.ifMatch;
const deploymentIdOf = (call: RouteCall) => call.values.deployment_id as string;

/** The query of a deployment a write left, as its answer shows it (with its ETag). */
const deploymentDocument = (name: string) => `query ${name}($id: ID!) {
  deployment(id: $id) ${recordWithEtag}
}`;

export const createDeploymentRoute: RestRoute = {
  path: '/v2/deployments',
  method: 'POST',
  idempotent: true,
  operationId: 'create_deployment_v2_deployments_post',
  summary: 'Create Deployment',
  description: 'Creates a deployment. It gets its first revision (`QUEUED`) when `source_revision_config` names something to build '
    + '(`repo_ref`, `image_uri` or `source_tarball_path`); otherwise `latest_revision_id` stays null until the first PATCH that does.',
  tag: 'deployments',
  parameters: [],
  body: validateCreateRequest as RestRoute['body'],
  bodySchema: 'DeploymentCreateRequest',
  bodyExample: {
    name: 'hello-api', source: 'external_docker', source_config: { deployment_type: 'dev' },
    source_revision_config: { image_uri: 'nginx:1.27' }, secrets: [{ name: 'GREETING', value: 'hello' }],
  },
  operationName: 'LegacyCreateDeployment',
  write: (ctx, { body }) => createDeploymentIn(ctx, body as CreateRequest),
  document: deploymentDocument('LegacyCreateDeployment'),
  variables: (_call, id) => ({ id }),
  respond: (data) => deploymentAnswer(201, data.deployment, true),
  successStatus: 201,
  successHeaders: { ETag: ETAG_HEADER, Location: 'The new deployment\'s path, `/v2/deployments/<id>`.' },
  otherResponses: { 409: { description: 'The tenant already has a deployment of that name.' } },
  responseSchema: legacyResponseSchema('Deployment'),
};

export const patchDeploymentRoute: RestRoute = {
  path: '/v2/deployments/{deployment_id}',
  method: 'PATCH',
  idempotent: true,
  ifMatch: true,
  operationId: 'patch_deployment_v2_deployments__deployment_id__patch',
  summary: 'Patch Deployment',
  description: 'Changes a deployment. A non-null `source_revision_config` field, `secrets` or `source_config.resource_spec` makes a new revision '
    + '(`QUEUED`), already the `latest_revision_id` of the answer; non-null `secrets` and `secret_references` replace the whole list.',
  tag: 'deployments',
  parameters: [deploymentIdParameter],
  body: validatePatchRequest as RestRoute['body'],
  bodySchema: 'DeploymentPatchRequest',
  bodyExample: { source_revision_config: { image_uri: 'nginx:1.28' } },
  operationName: 'LegacyPatchDeployment',
  write: (ctx, call) => updateDeploymentIn(ctx, deploymentIdOf(call), call.body as PatchRequest, ifMatchOf(call)),
  document: deploymentDocument('LegacyPatchDeployment'),
  variables: (_call, id) => ({ id }),
  respond: (data) => deploymentAnswer(200, data.deployment),
  successHeaders: { ETag: ETAG_HEADER },
  responseSchema: legacyResponseSchema('Deployment'),
  notFound: DEPLOYMENT_NOT_FOUND,
};

export const deleteDeploymentRoute: RestRoute = {
  path: '/v2/deployments/{deployment_id}',
  method: 'DELETE',
  ifMatch: true,
  operationId: 'delete_deployment_v2_deployments__deployment_id__delete',
  summary: 'Delete Deployment',
  description: 'Deletes the deployment with its revisions, secrets and tags, at once: a GET then answers 404.',
  tag: 'deployments',
  parameters: [
    deploymentIdParameter,
    { name: 'delete_tracing_project', in: 'query', kind: 'bool', description: 'Accepted as the original accepts it (default false); this service keeps no tracing projects, so it changes nothing.' },
  ],
  operationName: 'LegacyDeleteDeployment',
  // delete_tracing_project changes nothing here (GraphQL's deleteTracingProject neither).
  write: (ctx, call) => deleteDeploymentIn(ctx, deploymentIdOf(call), ifMatchOf(call)),
  respond: () => ({ status: 204, body: null }),
  successStatus: 204,
  responseSchema: null,
  notFound: DEPLOYMENT_NOT_FOUND,
};

export const deleteDeploymentsRoute: RestRoute = {
  path: '/v2/deployments',
  method: 'DELETE',
  operationId: 'delete_deployments_v2_deployments_delete',
  summary: 'Delete Deployments',
  description: `Deletes up to ${MAX_BULK_DELETE} deployments (\`?deployment_ids=<uuid>&deployment_ids=<uuid>\`) in one transaction. `
    + '200 when all were deleted; 207 when some were not found (`failed` says which); 404 when none was.',
  tag: 'deployments',
  parameters: [{ name: 'deployment_ids', in: 'query', kind: 'uuid-array', maxItems: MAX_BULK_DELETE, description: `Deployments to delete, the key repeated; at most ${MAX_BULK_DELETE}.` }],
  operationName: 'LegacyDeleteDeployments',
  write: (ctx, { values }) => deleteDeploymentsIn(ctx, values.deployment_ids as string[]),
  respond: (_data, _call, { deleted, notFound }: { deleted: string[]; notFound: string[] }) => {
    if (deleted.length === 0) return deploymentNotFound(notFound[0]);
    const failed = notFound.map((id) => ({ deployment_id: id, status: 404, detail: `Deployment ID ${id} not found.` }));
    return { status: failed.length > 0 ? 207 : 200, body: { deleted_ids: deleted, failed } };
  },
  otherResponses: { 207: { description: 'Some deployments were deleted, some not found.', content: { 'application/json': { schema: legacyResponseSchema('BulkDeletion') } } } },
  responseSchema: legacyResponseSchema('BulkDeletion'),
  notFound: 'None of the deployments exists in the tenant: `Deployment ID <first id> not found.`',
};

export const redeployRevisionRoute: RestRoute = {
  path: '/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy',
  method: 'POST',
  ifMatch: true,
  operationId: 'redeploy_revision_v2_deployments__deployment_id__revisions__revision_id__redeploy_post',
  summary: 'Redeploy Revision',
  description: 'Makes a new revision (`QUEUED`) built from what the chosen revision was built from; it is the `latest_revision_id` of the answer.',
  tag: 'deployments',
  parameters: [deploymentIdParameter, { name: 'revision_id', in: 'path', kind: 'uuid', description: 'ID of the revision to build again.' }],
  operationName: 'LegacyRedeployRevision',
  write: (ctx, call) => redeployRevisionIn(ctx, deploymentIdOf(call), call.values.revision_id as string, ifMatchOf(call)),
  document: deploymentDocument('LegacyRedeployRevision'),
  variables: (_call, id) => ({ id }),
  respond: (data) => deploymentAnswer(200, data.deployment),
  successHeaders: { ETag: ETAG_HEADER },
  responseSchema: legacyResponseSchema('Deployment'),
  notFound: `${DEPLOYMENT_NOT_FOUND} \`Revision ID <revision_id> not found.\`: the deployment has no revision of that id.`,
};

export const pushTokenRoute: RestRoute = {
  path: '/v2/deployments/{deployment_id}/push-token',
  method: 'POST',
  operationId: 'push_token_v2_deployments__deployment_id__push_token_post',
  summary: 'Push Token',
  description: 'A password for this service\'s container registry (user `oauth2accesstoken`), and the `registry_url` to push under: '
    + '`<registry_url>/<name>:<tag>`, then PATCH `source_revision_config.image_uri` as `<registry_url>/<name>@sha256:<digest>`. '
    + 'It grants push and pull on the deployment\'s repository and below, nothing else, for an hour (`expires_at`), '
    + 'until the deployment is deleted or the key that asked for it is revoked. For internal_docker deployments; '
    + '501 when the service is configured with no registry (REGISTRY_URL).',
  tag: 'deployments',
  parameters: [deploymentIdParameter],
  operationName: 'LegacyPushToken',
  write: (ctx, call) => issuePushToken(ctx, deploymentIdOf(call)),
  respond: (_data, _call, { token, registryUrl, expiresAt }) => ({ status: 200, body: { token, registry_url: registryUrl, expires_at: isoDateTime(expiresAt) } }),
  otherResponses: {
    400: { description: 'The deployment\'s source is not internal_docker: `Push tokens are only available for \'internal_docker\' source deployments.` (the CLI matches this text).' },
    501: { description: 'The service is configured with no container registry: `This service runs no container registry, so it issues no push tokens: …`.' },
  },
  responseSchema: legacyResponseSchema('PushToken'),
  notFound: DEPLOYMENT_NOT_FOUND,
};

export const uploadUrlRoute: RestRoute = {
  path: '/v2/deployments/{deployment_id}/upload-url',
  method: 'POST',
  operationId: 'upload_url_v2_deployments__deployment_id__upload_url_post',
  summary: 'Upload URL',
  description: 'A signed URL for one `PUT` of the source archive (a `.tar.gz`, at most 200 MiB; no API key: the signature is the permission), '
    + 'valid 15 minutes, and the `object_path` to send as `source_revision_config.source_tarball_path` in the PATCH that builds it. '
    + 'For internal_source and internal_docker deployments (the latter build from an archive with `revision_source` internal_source). '
    + 'A path no PATCH named within the hour is removed.',
  tag: 'deployments',
  parameters: [deploymentIdParameter],
  operationName: 'LegacySourceUpload',
  write: (ctx, call) => issueSourceUpload(ctx, deploymentIdOf(call)),
  respond: (_data, _call, { uploadUrl, objectPath, expiresAt }) => ({ status: 200, body: { upload_url: uploadUrl, object_path: objectPath, expires_at: isoDateTime(expiresAt) } }),
  otherResponses: { 400: { description: 'The deployment\'s source is neither internal_source nor internal_docker: `Upload URLs are only available for \'internal_source\' and \'internal_docker\' source deployments.`' } },
  responseSchema: legacyResponseSchema('SourceUpload'),
  notFound: DEPLOYMENT_NOT_FOUND,
};

export const deploymentWriteRoutes = [
  createDeploymentRoute, patchDeploymentRoute, deleteDeploymentRoute, deleteDeploymentsRoute, redeployRevisionRoute, pushTokenRoute, uploadUrlRoute,
];
