// The mutations' input objects: the original's request bodies (DeploymentCreateRequest, DeploymentPatchRequest)
// under GraphQL's names, and the GraphQL door's one translation to those bodies (legacyBodyOf), which it then
// validates as the REST door validates its own (validate-write-request.ts); the writer takes the bodies
// (deployment-writer.ts). The listener mutations translate theirs with it too.
import { builder } from '../../../graphql/builder.ts';
import { camelCaseKeys, snakeCase } from '../../common/legacy-json.ts';
import { DeploymentSourceEnum, DeploymentTypeEnum } from '../deployment-enums.graphql.ts';
import { ResourceSpecInput } from './resource-spec-input.graphql.ts';
import {
  REVISION_REQUEST_NAMES, SOURCE_CONFIG_REQUEST_NAMES, revisionConfigFields, sourceConfigFields, type SourceField,
} from '../source-config-fields.ts';
import { SECRET_FIELDS, SECRET_REFERENCE_FIELDS, secretFieldsOf, type SecretField } from '../secret-fields.ts';

const clientMutationId = (t: { string: (options: { description: string }) => unknown }) =>
  t.string({ description: 'Any string; returned unchanged in the payload, for a client matching answers to requests.' });

const ListenerConfigInput = builder.inputType('ListenerConfigInput', {
  description: 'Where a listener deploys (external_docker only).',
  fields: (t) => ({ k8sNamespace: t.string({ description: 'Target Kubernetes namespace; cannot be changed.' }) }),
});

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The source fields' inputs by their kind (source-config-fields.ts), under their camelCase names. */
const sourceInputFields = (t: PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>) => ({
  text: (field: SourceField) => t.string({ description: field.inputDescription }),
  uuid: (field: SourceField) => t.field({ type: 'UUID', description: field.inputDescription }),
  bool: (field: SourceField) => t.boolean({ description: field.inputDescription }),
  deploymentType: (field: SourceField) => t.field({ type: DeploymentTypeEnum, description: field.inputDescription }),
  resourceSpec: (field: SourceField) => t.field({ type: ResourceSpecInput, description: field.inputDescription }),
  listenerConfig: (field: SourceField) => t.field({ type: ListenerConfigInput, description: field.inputDescription }),
});

const SourceConfigInput = builder.inputType('SourceConfigInput', {
  description: 'How the deployment is built and run. A change of these makes no new revision, except `resourceSpec`.',
  fields: (t) => camelCaseKeys(sourceConfigFields(sourceInputFields(t), SOURCE_CONFIG_REQUEST_NAMES)),
});

const SourceRevisionConfigInput = builder.inputType('SourceRevisionConfigInput', {
  description: 'What to build. A non-null value makes a new revision.',
  fields: (t) => camelCaseKeys(revisionConfigFields(sourceInputFields(t), REVISION_REQUEST_NAMES)),
});

/** The secrets' and references' inputs (secret-fields.ts), under their camelCase names: required strings. */
const secretInputFields = <Fields extends Record<string, SecretField>>(t: PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>, fields: Fields) =>
  camelCaseKeys(secretFieldsOf(fields, (field) => t.string({ required: true, description: field.inputDescription })));

const SecretInput = builder.inputType('SecretInput', {
  description: 'A secret environment variable; its value is encrypted at rest.',
  fields: (t) => secretInputFields(t, SECRET_FIELDS),
});

const SecretReferenceInput = builder.inputType('SecretReferenceInput', {
  description: 'An environment variable filled from a key of an existing Kubernetes Secret (external_docker only).',
  fields: (t) => secretInputFields(t, SECRET_REFERENCE_FIELDS),
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
