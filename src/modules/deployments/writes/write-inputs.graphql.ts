// The mutations' input objects: the original's request bodies (DeploymentCreateRequest, DeploymentPatchRequest)
// under GraphQL's names, and the GraphQL door's one translation to those bodies (legacyBodyOf), which it then
// validates as the REST door validates its own (validate-write-request.ts); the writer takes the bodies
// (deployment-writer.ts). The listener mutations translate theirs with it too.
import { builder } from '../../../graphql/builder.ts';
import { snakeCase } from '../../common/legacy-json.ts';
import { DeploymentSourceEnum, DeploymentTypeEnum } from '../deployment-enums.graphql.ts';
import { ResourceSpecInput } from './resource-spec-input.graphql.ts';

const clientMutationId = (t: { string: (options: { description: string }) => unknown }) =>
  t.string({ description: 'Any string; returned unchanged in the payload, for a client matching answers to requests.' });

const ListenerConfigInput = builder.inputType('ListenerConfigInput', {
  description: 'Where a listener deploys (external_docker only).',
  fields: (t) => ({ k8sNamespace: t.string({ description: 'Target Kubernetes namespace; cannot be changed.' }) }),
});

const SourceConfigInput = builder.inputType('SourceConfigInput', {
  description: 'How the deployment is built and run. A change of these makes no new revision, except `resourceSpec`.',
  fields: (t) => ({
    integrationId: t.field({ type: 'UUID', description: 'Code-host integration of the repository (github only); cannot be changed.' }),
    repoUrl: t.string({ description: 'Repository URL (github only); cannot be changed.' }),
    deploymentType: t.field({ type: DeploymentTypeEnum, description: 'Service tier (`DEV` when not given); cannot be changed.' }),
    buildOnPush: t.boolean({ description: 'Build a new revision on every push to `repoRef` (github only; not with a tag).' }),
    customUrl: t.string({ description: 'Custom URL (external_docker only).' }),
    resourceSpec: t.field({ type: ResourceSpecInput, description: 'Scaling and compute settings; replaces the stored spec and makes a new revision.' }),
    listenerId: t.field({ type: 'UUID', description: 'Listener (external_docker only); cannot be changed.' }),
    listenerConfig: t.field({ type: ListenerConfigInput, description: 'Listener settings (external_docker only).' }),
    installCommand: t.string({ description: 'Custom install command (JavaScript projects), run from the repository root.' }),
    buildCommand: t.string({ description: 'Custom build command (JavaScript projects), run from the config file\'s directory.' }),
  }),
});

const SourceRevisionConfigInput = builder.inputType('SourceRevisionConfigInput', {
  description: 'What to build. A non-null value makes a new revision.',
  fields: (t) => ({
    repoRef: t.string({ description: 'Branch (`main`) or full tag ref (`refs/tags/v1.0.0`), github only.' }),
    graphConfigPath: t.string({ description: 'Path of the config file (github and internal_source).' }),
    imageUri: t.string({ description: 'Docker image URI (external_docker, internal_docker).' }),
    sourceTarballPath: t.string({ description: 'The `objectPath` `createSourceUpload` issued for this deployment, once the archive is uploaded (internal_source); any other path is refused, and a create cannot name one.' }),
  }),
});

const SecretInput = builder.inputType('SecretInput', {
  description: 'A secret environment variable; its value is encrypted at rest.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Variable name.' }),
    value: t.string({ required: true, description: 'Value.' }),
  }),
});

const SecretReferenceInput = builder.inputType('SecretReferenceInput', {
  description: 'An environment variable filled from a key of an existing Kubernetes Secret (external_docker only).',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Variable name.' }),
    secretName: t.string({ required: true, description: 'Name of the Kubernetes Secret.' }),
    secretKey: t.string({ required: true, description: 'Key inside it.' }),
  }),
});

export const CreateDeploymentInput = builder.inputType('CreateDeploymentInput', {
  description: 'A new deployment (REST: POST /v2/deployments). It gets a first revision when `sourceRevisionConfig` names something to build.',
  fields: (t) => ({
    clientMutationId: clientMutationId(t) as never,
    name: t.string({ required: true, description: 'Unique within the tenant; lower-case letters, digits and hyphens (a DNS label); cannot be changed.' }),
    source: t.field({ type: DeploymentSourceEnum, required: true, description: 'Where the code comes from; cannot be changed.' }),
    sourceConfig: t.field({ type: SourceConfigInput, description: 'How it is built and run.' }),
    sourceRevisionConfig: t.field({ type: SourceRevisionConfigInput, description: 'What to build first.' }),
    secrets: t.field({ type: [SecretInput], description: 'Secret environment variables (none when not given).' }),
    secretReferences: t.field({ type: [SecretReferenceInput], description: 'Variables from Kubernetes Secrets (external_docker only).' }),
  }),
});

const ifMatch = (t: { string: (options: { description: string }) => unknown }) =>
  t.string({ description: 'The `etag` you last read: the write is refused (PreconditionFailedError) if the deployment changed since.' });

export const UpdateDeploymentInput = builder.inputType('UpdateDeploymentInput', {
  description: 'A change of a deployment (REST: PATCH /v2/deployments/{id}). Null or absent fields keep their value; '
    + 'a non-null `sourceRevisionConfig` field, `secrets` or `sourceConfig.resourceSpec` makes a new revision.',
  fields: (t) => ({
    clientMutationId: clientMutationId(t) as never,
    id: t.id({ required: true, description: 'The deployment: its global id or its UUID.' }),
    ifMatch: ifMatch(t) as never,
    revisionSource: t.field({ type: DeploymentSourceEnum, description: 'Source of this revision (an internal deployment may switch between INTERNAL_DOCKER and INTERNAL_SOURCE).' }),
    sourceConfig: t.field({ type: SourceConfigInput, description: 'Settings to change.' }),
    sourceRevisionConfig: t.field({ type: SourceRevisionConfigInput, description: 'What to build.' }),
    secrets: t.field({ type: [SecretInput], description: 'Replaces the whole list of secrets (and makes a new revision).' }),
    secretReferences: t.field({ type: [SecretReferenceInput], description: 'Replaces the whole list of secret references.' }),
  }),
});

export const DeleteDeploymentInput = builder.inputType('DeleteDeploymentInput', {
  description: 'A deployment to delete, with its revisions, secrets and tags (REST: DELETE /v2/deployments/{id}).',
  fields: (t) => ({
    clientMutationId: clientMutationId(t) as never,
    id: t.id({ required: true, description: 'The deployment: its global id or its UUID.' }),
    ifMatch: ifMatch(t) as never,
    deleteTracingProject: t.boolean({ defaultValue: false, description: 'Accepted for the original\'s clients; this service keeps no tracing projects.' }),
  }),
});

export const DeleteDeploymentsInput = builder.inputType('DeleteDeploymentsInput', {
  description: 'Deployments to delete at once (REST: DELETE /v2/deployments?deployment_ids=…), at most 100.',
  fields: (t) => ({
    clientMutationId: clientMutationId(t) as never,
    ids: t.idList({ required: true, description: 'The deployments: global ids or UUIDs.' }),
  }),
});

export const RedeployRevisionInput = builder.inputType('RedeployRevisionInput', {
  description: 'A new revision built from what an earlier one was built from (REST: POST …/revisions/{revision_id}/redeploy).',
  fields: (t) => ({
    clientMutationId: clientMutationId(t) as never,
    deploymentId: t.id({ required: true, description: 'The deployment: its global id or its UUID.' }),
    revisionId: t.field({ type: 'UUID', required: true, description: 'The revision to build again.' }),
    ifMatch: ifMatch(t) as never,
  }),
});

/**
 * An input object as the original's request body names it: our own objects' keys in snake_case, enum values
 * as their legacy values (Pothos gives them so already), the Kubernetes parts' keys unchanged, absent fields
 * left out.
 */
export function legacyBodyOf(input: Record<string, unknown>, omit: readonly string[] = []): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || omit.includes(key)) continue;
    body[snakeCase(key)] = OWN_OBJECTS.has(key) && value !== null ? ownObject(value) : value;
  }
  return body;
}

/**
 * Keys whose values are objects of ours (snake_case keys), or lists of them; everything else is a leaf. A
 * listener's `computeConfig` too: the listener mutations take their bodies so (listener-mutations.graphql.ts).
 */
const OWN_OBJECTS = new Set(['sourceConfig', 'sourceRevisionConfig', 'resourceSpec', 'listenerConfig', 'secrets', 'secretReferences', 'computeConfig']);

function ownObject(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ownObject);
  return typeof value === 'object' && value !== null ? legacyBodyOf(value as Record<string, unknown>) : value;
}
