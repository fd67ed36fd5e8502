// The request bodies of the deployment writes (POST /v2/deployments, PATCH /v2/deployments/{id}), as the
// original's pydantic models declare them (shared/spec/original-write-side.md §3.1-3.9). Fields are in the
// order of that document, which pydantic validates and reports errors in. These differ from the stored record
// (deployment-record.schema.ts): nothing is required inside source_config, `deployment_type` included, the cpu
// fields have ranges, the Kubernetes names are required where Kubernetes requires them, and unknown keys are
// ignored rather than refused.
import {
  bool, componentSchemasOf, dictOf, float, freeForm, int, listOf, model, nested, oneOf, optional, optionalNotNull,
  ranged, required, string, uuid, type FieldType, type ModelValue,
} from '../../common/request-model.ts';
import { DEPLOYMENT_SOURCES, DEPLOYMENT_TYPES } from '../deployment-enums.ts';
import {
  REVISION_REQUEST_NAMES, SOURCE_CONFIG_REQUEST_NAMES, revisionConfigFields, sourceConfigFields, type SourceField,
} from '../source-config-fields.ts';
import { RESOURCE_SPEC_SCALAR_NAMES, resourceSpecScalars, type ResourceSpecScalarName } from '../resource-spec-fields.ts';
import { SECRET_FIELDS, SECRET_REFERENCE_FIELDS, secretFieldsOf, type SecretField } from '../secret-fields.ts';

export { jsonSchemaOf } from '../../common/request-model.ts';

/** A revision's source may be any deployment source but `external_docker`. */
export const REVISION_SOURCES = ['github', 'internal_docker', 'internal_source'] as const;

// Kubernetes-shaped helpers (§3.7): Kubernetes' camelCase keys, unlike the rest of the API.
const stringMap = dictOf(string);

const LocalObjectReference = model('LocalObjectReference', {
  name: required(string),
});

const ResourceRequirements = model('ResourceRequirements', {
  limits: optional(stringMap),
  requests: optional(stringMap),
});

const VolumeMount = model('VolumeMount', {
  name: optionalNotNull(string),
  mountPath: optionalNotNull(string),
  subPath: optional(string),
  mountPropagation: optional(string),
  readOnly: optional(bool),
  subPathExpr: optional(string),
});

const EnvVar = model('EnvVar', {
  name: required(string, 'A C identifier.'),
  value: optional(string, 'Defaults to the empty string.'),
  valueFrom: optional(freeForm, 'Not together with a non-empty value.'),
});

const Container = model('Container', {
  name: required(string, 'A DNS label.'),
  image: required(string),
  imagePullPolicy: optional(string, 'Always, Never or IfNotPresent.'),
  command: optional(listOf(string)),
  args: optional(listOf(string)),
  workingDir: optional(string),
  env: optional(listOf(nested(EnvVar))),
  envFrom: optional(listOf(freeForm)),
  resources: optional(nested(ResourceRequirements)),
  volumeMounts: optional(listOf(nested(VolumeMount))),
  securityContext: optional(freeForm),
  restartPolicy: optional(string, 'Always or OnFailure.'),
});

const Volume = model('Volume', {
  name: optionalNotNull(string, 'A DNS label, unique in the pod.'),
  configMap: optional(freeForm),
  secret: optional(freeForm),
  emptyDir: optional(freeForm),
  persistentVolumeClaim: optional(freeForm),
  nfs: optional(freeForm),
  projected: optional(freeForm),
  downwardAPI: optional(freeForm),
  csi: optional(freeForm),
});

// The scalar fields' types by their request kind (resource-spec-fields.ts).
const SCALAR_TYPES = { int, float, cpu: ranged('float', 0.1, 8), cpuLimit: ranged('float', 0.1, 16) };
const scalarFields = <Name extends ResourceSpecScalarName>(names: readonly Name[]) =>
  resourceSpecScalars((field) => optional(SCALAR_TYPES[field.request], field.requestDescription), names);
// The original's model declares the database fields last, after the Kubernetes parts.
type DatabaseField = Extract<ResourceSpecScalarName, `db_${string}`>;
const isDatabaseField = (name: ResourceSpecScalarName): name is DatabaseField => name.startsWith('db_');
const DATABASE_FIELDS = RESOURCE_SPEC_SCALAR_NAMES.filter(isDatabaseField);
const WORKLOAD_FIELDS = RESOURCE_SPEC_SCALAR_NAMES.filter((name): name is Exclude<ResourceSpecScalarName, DatabaseField> => !isDatabaseField(name));

const ResourceSpec = model('ResourceSpec-Input', {
  ...scalarFields(WORKLOAD_FIELDS),
  labels: optional(stringMap),
  annotations: optional(stringMap),
  service_account_name: optional(string, 'Must already exist in the target namespace.'),
  image_pull_secrets: optional(listOf(nested(LocalObjectReference))),
  volumes: optional(listOf(nested(Volume))),
  volume_mounts: optional(listOf(nested(VolumeMount))),
  init_containers: optional(listOf(nested(Container))),
  sidecars: optional(listOf(nested(Container))),
  ...scalarFields(DATABASE_FIELDS),
}, {
  title: 'ResourceSpec',
  description: 'Only for external_docker. Non-null on PATCH: a new revision, and the whole stored resource_spec is replaced.',
});

const ListenerConfig = model('ListenerConfig', {
  k8s_namespace: optional(string, 'Target namespace; immutable; only for listeners of the k8s compute type.'),
});

// The source fields' types by their kind (source-config-fields.ts).
const requestField = <const Type extends FieldType>(type: Type) => (field: SourceField) => optional(type, field.requestDescription);
const SOURCE_FIELD_TYPES = {
  text: requestField(string), uuid: requestField(uuid), bool: requestField(bool),
  deploymentType: requestField(oneOf(DEPLOYMENT_TYPES)), resourceSpec: requestField(nested(ResourceSpec)),
  listenerConfig: requestField(nested(ListenerConfig)),
};

const SourceConfigRequest = model('SourceConfigRequest', sourceConfigFields(SOURCE_FIELD_TYPES, SOURCE_CONFIG_REQUEST_NAMES),
  { description: 'Settings that need no new revision when changed, or cannot be changed; validated against the source.' });

const SourceRevisionConfigRequest = model('SourceRevisionConfigRequest', revisionConfigFields(SOURCE_FIELD_TYPES, REVISION_REQUEST_NAMES),
  { description: 'Settings that need a new revision when changed: non-null on PATCH starts one.' });

// The secrets' and references' fields (secret-fields.ts): every one a required string.
const secretField = (field: SecretField) => required(string, field.requestDescription);

const Secret = model('Secret', secretFieldsOf(SECRET_FIELDS, secretField),
  { description: 'Exposed as an environment variable of the deployed container.' });

const SecretReference = model('SecretReference', secretFieldsOf(SECRET_REFERENCE_FIELDS, secretField));

export const DeploymentCreateRequest = model('DeploymentCreateRequest', {
  name: required(string, 'Deployment name (a tracing project of the same name is created); immutable.'),
  source: required(oneOf(DEPLOYMENT_SOURCES), 'Immutable.'),
  source_config: required(nested(SourceConfigRequest)),
  source_revision_config: required(nested(SourceRevisionConfigRequest)),
  secrets: required(listOf(nested(Secret))),
  secret_references: optional(listOf(nested(SecretReference)), 'Kubernetes Secret references; external_docker only.'),
}, { description: 'Request body for creating a deployment.' });

export const DeploymentPatchRequest = model('DeploymentPatchRequest', {
  revision_source: optional(oneOf(REVISION_SOURCES), 'The source of this revision; the deployment\'s own when absent.'),
  source_config: optional(nested(SourceConfigRequest)),
  source_revision_config: optional(nested(SourceRevisionConfigRequest)),
  secrets: optional(listOf(nested(Secret)), 'Non-null: a new revision.'),
  secret_references: optional(listOf(nested(SecretReference)), 'external_docker only.'),
}, { description: 'Request body for patching a deployment; may start a new revision, depending on what it sets.' });

/** A valid create body: snake_case keys (camelCase inside the Kubernetes shapes), only the keys sent. */
export type CreateRequest = ModelValue<typeof DeploymentCreateRequest>;
/** A valid patch body: every key optional; null is kept, so "absent" and "null" stay apart. */
export type PatchRequest = ModelValue<typeof DeploymentPatchRequest>;

/** JSON Schemas of both bodies and every model inside them, by OpenAPI component name. */
export function writeRequestSchemas(): Record<string, Record<string, unknown>> {
  return componentSchemasOf([DeploymentCreateRequest, DeploymentPatchRequest]);
}
