// The original's deployment writes (docs/rest.md#writes): POST /v2/deployments, PATCH and DELETE
// /v2/deployments/{deployment_id}, DELETE /v2/deployments (bulk) and POST …/revisions/{revision_id}/redeploy.
// Each runs its GraphQL mutation; the body is validated first as FastAPI validates the original's models, and
// the mutation's typed refusals become the original's status codes and `detail` bodies.
import { validateCreateRequest, validatePatchRequest } from '../modules/deployments/writes/validate-write-request.ts';
import { MAX_BULK_DELETE } from '../modules/deployments/writes/deployment-writer.ts';
import { DEPLOYMENT_NOT_FOUND, deploymentAnswer, deploymentIdParameter, deploymentNotFound, recordWithEtag } from './deployments.route.ts';
import { ETAG_HEADER } from './openapi.ts';
import { INVALID, PRECONDITION, REFUSED, refusalAnswer } from './refusal-answers.ts';
import { legacyResponseSchema } from './response-schemas.ts';
import type { RestRoute, RouteCall } from './rest-route.ts';
import { graphqlInputOf } from './write-variables.ts';

const ifMatchVariable = (call: RouteCall) => (call.ifMatch === undefined ? {} : { ifMatch: call.ifMatch });

export const createDeploymentRoute: RestRoute = {
  path: '/v2/deployments',
  method: 'POST',
  write: true,
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
  document: `mutation LegacyCreateDeployment($input: CreateDeploymentInput!) {
  createDeployment(input: $input) {
    ${REFUSED} ${INVALID}
    ... on CreateDeploymentPayload { deployment ${recordWithEtag} }
  }
}`,
  variables: ({ body }) => ({ input: graphqlInputOf(body as Record<string, unknown>) }),
  respond: (data) => refusalAnswer(data.createDeployment) ?? deploymentAnswer(201, data.createDeployment.deployment, true),
  successStatus: 201,
  successHeaders: { ETag: ETAG_HEADER, Location: 'The new deployment\'s path, `/v2/deployments/<id>`.' },
  otherResponses: { 409: { description: 'The tenant already has a deployment of that name.' } },
  responseSchema: legacyResponseSchema('Deployment'),
};

export const patchDeploymentRoute: RestRoute = {
  path: '/v2/deployments/{deployment_id}',
  method: 'PATCH',
  write: true,
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
  document: `mutation LegacyPatchDeployment($input: UpdateDeploymentInput!) {
  updateDeployment(input: $input) {
    ${REFUSED} ${INVALID} ${PRECONDITION}
    ... on UpdateDeploymentPayload { deployment ${recordWithEtag} }
  }
}`,
  variables: (call) => ({ input: { id: call.values.deployment_id, ...ifMatchVariable(call), ...graphqlInputOf(call.body as Record<string, unknown>) } }),
  respond: (data) => refusalAnswer(data.updateDeployment) ?? deploymentAnswer(200, data.updateDeployment.deployment),
  successHeaders: { ETag: ETAG_HEADER },
  responseSchema: legacyResponseSchema('Deployment'),
  notFound: DEPLOYMENT_NOT_FOUND,
};

export const deleteDeploymentRoute: RestRoute = {
  path: '/v2/deployments/{deployment_id}',
  method: 'DELETE',
  write: true,
  ifMatch: true,
  operationId: 'delete_deployment_v2_deployments__deployment_id__delete',
  summary: 'Delete Deployment',
  description: 'Deletes the deployment with its revisions, secrets and tags, at once: a GET then answers 404.',
  tag: 'deployments',
  parameters: [
    deploymentIdParameter,
    { name: 'delete_tracing_project', in: 'query', kind: 'bool', description: 'Accepted as the original accepts it (default false); this service keeps no tracing projects, so it changes nothing.' },
  ],
  document: `mutation LegacyDeleteDeployment($input: DeleteDeploymentInput!) {
  deleteDeployment(input: $input) {
    ${REFUSED} ${PRECONDITION}
    ... on DeleteDeploymentPayload { deletedId }
  }
}`,
  variables: (call) => ({ input: { id: call.values.deployment_id, deleteTracingProject: call.values.delete_tracing_project ?? false, ...ifMatchVariable(call) } }),
  respond: (data) => refusalAnswer(data.deleteDeployment) ?? { status: 204, body: null },
  successStatus: 204,
  responseSchema: null,
  notFound: DEPLOYMENT_NOT_FOUND,
};

export const deleteDeploymentsRoute: RestRoute = {
  path: '/v2/deployments',
  method: 'DELETE',
  write: true,
  operationId: 'delete_deployments_v2_deployments_delete',
  summary: 'Delete Deployments',
  description: `Deletes up to ${MAX_BULK_DELETE} deployments (\`?deployment_ids=<uuid>&deployment_ids=<uuid>\`) in one transaction. `
    + '200 when all were deleted; 207 when some were not found (`failed` says which); 404 when none was.',
  tag: 'deployments',
  parameters: [{ name: 'deployment_ids', in: 'query', kind: 'uuid-array', maxItems: MAX_BULK_DELETE, description: `Deployments to delete, the key repeated; at most ${MAX_BULK_DELETE}.` }],
  document: `mutation LegacyDeleteDeployments($input: DeleteDeploymentsInput!) {
  deleteDeployments(input: $input) { deletedIds notFoundIds }
}`,
  variables: ({ values }) => ({ input: { ids: values.deployment_ids } }),
  respond: (data) => {
    const { deletedIds, notFoundIds } = data.deleteDeployments as { deletedIds: string[]; notFoundIds: string[] };
    if (deletedIds.length === 0) return deploymentNotFound(notFoundIds[0]);
    const failed = notFoundIds.map((id) => ({ deployment_id: id, status: 404, detail: `Deployment ID ${id} not found.` }));
    return { status: failed.length > 0 ? 207 : 200, body: { deleted_ids: deletedIds, failed } };
  },
  otherResponses: { 207: { description: 'Some deployments were deleted, some not found.', content: { 'application/json': { schema: legacyResponseSchema('BulkDeletion') } } } },
  responseSchema: legacyResponseSchema('BulkDeletion'),
  notFound: 'None of the deployments exists in the tenant: `Deployment ID <first id> not found.`',
};

export const redeployRevisionRoute: RestRoute = {
  path: '/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy',
  method: 'POST',
  write: true,
  ifMatch: true,
  operationId: 'redeploy_revision_v2_deployments__deployment_id__revisions__revision_id__redeploy_post',
  summary: 'Redeploy Revision',
  description: 'Makes a new revision (`QUEUED`) built from what the chosen revision was built from; it is the `latest_revision_id` of the answer.',
  tag: 'deployments',
  parameters: [deploymentIdParameter, { name: 'revision_id', in: 'path', kind: 'uuid', description: 'ID of the revision to build again.' }],
  document: `mutation LegacyRedeployRevision($input: RedeployRevisionInput!) {
  redeployRevision(input: $input) {
    ${REFUSED} ${PRECONDITION}
    ... on RedeployRevisionPayload { deployment ${recordWithEtag} }
  }
}`,
  variables: (call) => ({ input: { deploymentId: call.values.deployment_id, revisionId: call.values.revision_id, ...ifMatchVariable(call) } }),
  respond: (data) => refusalAnswer(data.redeployRevision) ?? deploymentAnswer(200, data.redeployRevision.deployment),
  successHeaders: { ETag: ETAG_HEADER },
  responseSchema: legacyResponseSchema('Deployment'),
  notFound: `${DEPLOYMENT_NOT_FOUND} \`Revision ID <revision_id> not found.\`: the deployment has no revision of that id.`,
};



export const pushTokenRoute: RestRoute = {
  path: '/v2/deployments/{deployment_id}/push-token',
  method: 'POST',
  write: true,
  operationId: 'push_token_v2_deployments__deployment_id__push_token_post',
  summary: 'Push Token',
  description: 'A password for this service\'s container registry (user `oauth2accesstoken`), and the `registry_url` to push under: '
    + '`<registry_url>/<name>:<tag>`, then PATCH `source_revision_config.image_uri` as `<registry_url>/<name>@sha256:<digest>`. '
    + 'It grants push and pull on the deployment\'s repository and below, nothing else, for an hour (`expires_at`), '
    + 'until the deployment is deleted or the key that asked for it is revoked. For internal_docker deployments; '
    + '501 when the service is configured with no registry (REGISTRY_URL).',
  tag: 'deployments',
  parameters: [deploymentIdParameter],
  document: `mutation LegacyPushToken($input: CreatePushTokenInput!) {
  createPushToken(input: $input) {
    ${REFUSED}
    ... on CreatePushTokenPayload { token registryUrl expiresAt }
  }
}`,
  variables: ({ values }) => ({ input: { deploymentId: values.deployment_id } }),
  respond: (data) => {
    const result = data.createPushToken;
    if (result.__typename === 'RegistryNotConfiguredError') return { status: 501, body: { detail: result.message } };
    return refusalAnswer(result) ?? { status: 200, body: { token: result.token, registry_url: result.registryUrl, expires_at: result.expiresAt } };
  },
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
  write: true,
  operationId: 'upload_url_v2_deployments__deployment_id__upload_url_post',
  summary: 'Upload URL',
  description: 'A signed URL for one `PUT` of the source archive (a `.tar.gz`, at most 200 MiB; no API key: the signature is the permission), '
    + 'valid 15 minutes, and the `object_path` to send as `source_revision_config.source_tarball_path` in the PATCH that builds it. '
    + 'For internal_source and internal_docker deployments (the latter build from an archive with `revision_source` internal_source). '
    + 'A path no PATCH named within the hour is removed.',
  tag: 'deployments',
  parameters: [deploymentIdParameter],
  document: `mutation LegacySourceUpload($input: CreateSourceUploadInput!) {
  createSourceUpload(input: $input) {
    ${REFUSED}
    ... on CreateSourceUploadPayload { uploadUrl objectPath expiresAt }
  }
}`,
  variables: ({ values }) => ({ input: { deploymentId: values.deployment_id } }),
  respond: (data) => {
    const result = data.createSourceUpload;
    return refusalAnswer(result) ?? { status: 200, body: { upload_url: result.uploadUrl, object_path: result.objectPath, expires_at: result.expiresAt } };
  },
  otherResponses: { 400: { description: 'The deployment\'s source is neither internal_source nor internal_docker: `Upload URLs are only available for \'internal_source\' and \'internal_docker\' source deployments.`' } },
  responseSchema: legacyResponseSchema('SourceUpload'),
  notFound: DEPLOYMENT_NOT_FOUND,
};

export const deploymentWriteRoutes = [
  createDeploymentRoute, patchDeploymentRoute, deleteDeploymentRoute, deleteDeploymentsRoute, redeployRevisionRoute, pushTokenRoute, uploadUrlRoute,
];
