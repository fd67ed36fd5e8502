// JSON Schemas of the REST bodies, for the OpenAPI document. Records come from the same zod schemas that
// validate imports (one definition of the legacy shape), with every key required: responses always carry
// every key, null when absent.
import { z } from 'zod';
import { deploymentRecordSchema, timestamp, uuid } from '../modules/deployments/deployment-record.schema.ts';
import { REVISION_STATUSES } from '../modules/deployments/deployment-enums.ts';
import { revisionRecordSchema } from '../modules/revisions/revision-record.schema.ts';

export const repositoryRecordSchema = z.strictObject({
  host_integration_id: uuid,
  id: z.number().int(),
  name: z.string(),
  owner: z.string(),
  url: z.string(),
  default_branch: z.string(),
});

/** An element of the `/install` listings; `id` is what a client sets as `integration_id`. */
export const installationRecordSchema = z.strictObject({
  id: uuid,
  installation_id: z.number().int(),
  name: z.string(),
});

/** A listener as the original answers it (shared/spec/original-listeners.md). */
const listenerRecordSchema = z.strictObject({
  version: z.string().nullable(),
  compute_type: z.literal('k8s'),
  compute_id: z.string(),
  compute_config: z.strictObject({ k8s_namespaces: z.array(z.string()).nullable() }),
  id: uuid,
  created_at: timestamp,
  updated_at: timestamp,
});

const zodBodies = {
  Listener: listenerRecordSchema,
  ListenersList: z.strictObject({ resources: z.array(listenerRecordSchema), offset: z.number().int() }),
  Deployment: deploymentRecordSchema,
  DeploymentList: z.strictObject({ resources: z.array(deploymentRecordSchema), offset: z.number().int() }),
  Repository: repositoryRecordSchema,
  RepositoryList: z.array(repositoryRecordSchema),
  Revision: revisionRecordSchema,
  RevisionList: z.strictObject({ resources: z.array(revisionRecordSchema), offset: z.number().int() }),
  Installation: installationRecordSchema,
  InstallationList: z.array(installationRecordSchema),
  SourceUpload: z.strictObject({ upload_url: z.string(), object_path: z.string(), expires_at: timestamp }),
  PushToken: z.strictObject({ token: z.string(), registry_url: z.string(), expires_at: timestamp }),
  BulkDeletion: z.strictObject({
    deleted_ids: z.array(uuid),
    failed: z.array(z.strictObject({ deployment_id: z.string(), status: z.number().int(), detail: z.string() })),
  }),
};

// The data planes' answers (ours: docs/rest.md#data-planes) and the CLI's build_logs and deploy_logs answers.
const leaseExpiry = timestamp.nullable();
const logPage = z.strictObject({
  logs: z.array(z.strictObject({ id: uuid, message: z.string(), timestamp, level: z.string().nullable(), line: z.number().int() })),
  next_offset: z.number().int(),
});
const dataPlaneBodies = {
  Claims: z.strictObject({
    leases: z.array(z.strictObject({
      revision_id: uuid, deployment_id: uuid, tenant_id: uuid, lease_id: uuid, lease_expires_at: timestamp, source_archive_url: z.string().nullable(),
      image_pull: z.strictObject({ token: z.string(), registry: z.string(), repository: z.string(), reference: z.string(), expires_at: timestamp }).nullable(),
    })),
  }),
  StatusReported: z.strictObject({ revision_id: uuid, status: z.enum(REVISION_STATUSES), applied: z.boolean(), lease_expires_at: leaseExpiry }),
  LogsAppended: z.strictObject({ appended: z.number().int(), next_line: z.number().int(), lease_expires_at: leaseExpiry }),
  DeploymentReported: z.strictObject({ deployment_id: uuid }),
  Heartbeat: z.strictObject({ listener_id: uuid, version: z.string().nullable(), last_contact_at: timestamp, online: z.boolean() }),
  BuildLogs: logPage,
  DeployLogs: logPage,
};

type JsonSchema = Record<string, unknown>;

/** Every object's properties become required (responses omit no key), recursively. */
function requireEveryKey(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(requireEveryKey);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, requireEveryKey(value)])) as JsonSchema;
  if (copy.type === 'object' && copy.properties) copy.required = Object.keys(copy.properties as object);
  return copy;
}

const validationError: JsonSchema = {
  type: 'object',
  properties: {
    type: { type: 'string', description: 'pydantic error type, e.g. `int_parsing`.' },
    loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] }, description: '`["query", name]`, `["path", name]`, plus an index for list items.' },
    msg: { type: 'string' },
    input: { description: 'The value as sent.' },
    ctx: { type: 'object', description: 'Limits or expected values, for the types that have them.' },
  },
  required: ['type', 'loc', 'msg', 'input'],
  additionalProperties: false,
};

export function componentSchemas(): Record<string, JsonSchema> {
  const records = Object.fromEntries(Object.entries({ ...zodBodies, ...dataPlaneBodies }).map(([name, schema]) =>
    [name, requireEveryKey(z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' })) as JsonSchema]));
  for (const schema of Object.values(records)) delete schema.$schema;
  return {
    ...records,
    HTTPError: { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'], additionalProperties: false },
    ValidationError: validationError,
    HTTPValidationError: {
      type: 'object',
      properties: { detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationError' } } },
      required: ['detail'],
      additionalProperties: false,
    },
  };
}

export const legacyResponseSchema = (name: keyof typeof zodBodies): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

export const dataPlaneResponseSchema = (name: keyof typeof dataPlaneBodies): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
