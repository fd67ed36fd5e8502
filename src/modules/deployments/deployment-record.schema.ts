// The legacy deployment record (docs/legacy-api.md#deployment-record, with `status`, `source` and
// `source_config.deployment_type` as the original serves them). Keys are declared in the legacy order;
// this schema validates imports and, through withDeclaredKeys, shapes every record we emit.
import { z } from 'zod';
import {
  DEPLOYMENT_SOURCES, DEPLOYMENT_STATUSES, DEPLOYMENT_TYPES,
} from './deployment-enums.ts';
import { UUID_PATTERN } from '../common/uuid.ts';
import { resourceSpecScalars } from './resource-spec-fields.ts';
import { revisionConfigFields, sourceConfigFields } from './source-config-fields.ts';
import { SECRET_FIELDS, SECRET_REFERENCE_FIELDS, secretFieldsOf, type SecretField } from './secret-fields.ts';

export const uuid = z.string().regex(UUID_PATTERN, 'must be a UUID').transform((value) => value.toLowerCase());
export const text = z.string().min(1, 'must not be empty');
const optionalText = z.string().nullish();
const optionalInt = z.number().int().nullish();
const optionalNumber = z.number().nullish();
const jsonObject = z.record(z.string(), z.unknown());
const optionalObject = jsonObject.nullish();
export const timestamp = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with a time zone' })
  .transform((value) => new Date(value));

const volumeMount = z.strictObject({
  name: optionalText,
  mountPath: optionalText,
  subPath: optionalText,
  mountPropagation: optionalText,
  subPathExpr: optionalText,
  readOnly: z.boolean().nullish(),
});

const container = z.strictObject({
  name: optionalText,
  image: optionalText,
  imagePullPolicy: optionalText,
  workingDir: optionalText,
  restartPolicy: optionalText,
  command: z.array(z.string()).nullish(),
  args: z.array(z.string()).nullish(),
  env: z.array(z.strictObject({ name: optionalText, value: optionalText, valueFrom: optionalObject })).nullish(),
  envFrom: z.array(jsonObject).nullish(),
  resources: z.strictObject({ limits: optionalObject, requests: optionalObject }).nullish(),
  volumeMounts: z.array(volumeMount).nullish(),
  securityContext: optionalObject,
});

const volume = z.strictObject({
  name: optionalText,
  configMap: optionalObject,
  secret: optionalObject,
  emptyDir: optionalObject,
  persistentVolumeClaim: optionalObject,
  nfs: optionalObject,
  projected: optionalObject,
  downwardAPI: optionalObject,
  csi: optionalObject,
});

// The scalar fields by their stored kind (resource-spec-fields.ts).
const STORED_SCALARS = { int: optionalInt, number: optionalNumber };

export const resourceSpecSchema = z.strictObject({
  ...resourceSpecScalars((field) => STORED_SCALARS[field.stored]),
  labels: optionalObject, annotations: optionalObject, service_account_name: optionalText,
  image_pull_secrets: z.array(z.strictObject({ name: optionalText })).nullish(),
  volumes: z.array(volume).nullish(),
  volume_mounts: z.array(volumeMount).nullish(),
  init_containers: z.array(container).nullish(),
  sidecars: z.array(container).nullish(),
});

// The source fields by their kind (source-config-fields.ts). Only the service tier is required: the record
// always has one.
const STORED_SOURCE_FIELDS = {
  text: () => optionalText,
  uuid: () => uuid.nullish(),
  bool: () => z.boolean().nullish(),
  deploymentType: () => z.enum(DEPLOYMENT_TYPES),
  resourceSpec: () => resourceSpecSchema.nullish(),
  listenerConfig: () => z.strictObject({ k8s_namespace: optionalText }).nullish(),
};

const sourceConfig = z.strictObject(sourceConfigFields(STORED_SOURCE_FIELDS));

export const sourceRevisionConfigSchema = z.strictObject(revisionConfigFields(STORED_SOURCE_FIELDS));

// The secrets' and references' fields (secret-fields.ts): names are non-empty, a value may be empty.
const storedSecretField = (field: SecretField) => (field.kind === 'text' ? text : z.string());

export const deploymentRecordSchema = z.strictObject({
  name: text,
  source_config: sourceConfig,
  source_revision_config: sourceRevisionConfigSchema.nullish(),
  secrets: z.array(z.strictObject(secretFieldsOf(SECRET_FIELDS, storedSecretField))).nullish(),
  id: uuid,
  tenant_id: uuid,
  created_at: timestamp,
  updated_at: timestamp,
  latest_revision_id: uuid.nullish(),
  active_revision_id: uuid.nullish(),
  secret_references: z.array(z.strictObject(secretFieldsOf(SECRET_REFERENCE_FIELDS, storedSecretField))).nullish(),
  image_version: optionalText,
  status: z.enum(DEPLOYMENT_STATUSES),
  source: z.enum(DEPLOYMENT_SOURCES),
});

export type DeploymentRecordInput = z.output<typeof deploymentRecordSchema>;
export type ResourceSpecInput = z.output<typeof resourceSpecSchema>;
