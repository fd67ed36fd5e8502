// The REST write routes as a legacy client calls them, and the deployment records their answers must carry,
// written out by hand from the original's Deployment shape (shared/spec/original-write-side.md §3.3,
// docs/legacy-api.md#deployment-record): every key present, in the legacy order, null when unset. Nothing
// here is computed by src/.
import { expect } from 'vitest';
import { textDifference } from './legacy-text.ts';

export const MASK = '********';
export const UNKNOWN_ID = '0f0f0f0f-0000-4000-8000-000000000000';
/** How the service writes a timestamp in legacy JSON. */
export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The revision statuses the maker's CLI stops polling at (§6.5). */
export const TERMINAL_STATUSES = ['DEPLOYED', 'CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED', 'SKIPPED'];

export interface Answer {
  status: number;
  type: string | null;
  headers: Headers;
  text: string;
  json: any;
}

export interface CallOptions {
  key?: string;
  /** A string is sent as it is; anything else as JSON.stringify gives it. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** `call(method, path, options)`: the answer with its text; `Content-Type: application/json` only with a body. */
export function restCaller(url: () => string, defaultKey: () => string) {
  return async (method: string, path: string, options: CallOptions = {}): Promise<Answer> => {
    const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    const response = await fetch(`${url()}${path}`, {
      method,
      headers: { 'x-api-key': options.key ?? defaultKey(), ...(body !== undefined && { 'content-type': 'application/json' }), ...options.headers },
      body,
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, type: response.headers.get('content-type'), headers: response.headers, text, json };
  };
}

/** The answer is `status`, JSON, and exactly `expected`'s text. */
export function expectJsonText(answer: Answer, status: number, expected: unknown): void {
  expect({ status: answer.status, type: answer.type, body: textDifference(answer.text, JSON.stringify(expected)) })
    .toEqual({ status, type: 'application/json', body: 'identical' });
}

export const detail = (message: string) => ({ detail: message });
export const deploymentNotFound = (id: string) => detail(`Deployment ID ${id} not found.`);
export const revisionNotFound = (id: string) => detail(`Revision ID ${id} not found.`);
export const READ_ONLY = detail('This API key may not write: issue one with `npm run apikey -- create --write`');

/** One pydantic v2 error item, its keys in pydantic's order. */
export const pydantic = (type: string, loc: (string | number)[], msg: string, input: unknown, ctx?: Record<string, unknown>) =>
  (ctx ? { type, loc, msg, input, ctx } : { type, loc, msg, input });
/** The item pydantic writes for an error a model validator raises (ValueError). */
export const valueError = (loc: (string | number)[], input: unknown, error: string) => pydantic('value_error', loc, `Value error, ${error}`, input, { error });

const RESOURCE_SPEC_KEYS = [
  'min_scale', 'max_scale', 'cpu', 'cpu_limit', 'memory_mb', 'memory_limit_mb',
  'queue_min_scale', 'queue_max_scale', 'queue_cpu', 'queue_cpu_limit', 'queue_memory_mb', 'queue_memory_limit_mb',
  'orchestrator_cpu', 'orchestrator_cpu_limit', 'orchestrator_memory_mb', 'orchestrator_memory_limit_mb', 'orchestrator_min_scale', 'orchestrator_max_scale',
  'executor_cpu', 'executor_cpu_limit', 'executor_memory_mb', 'executor_memory_limit_mb',
  'redis_cpu', 'redis_cpu_limit', 'redis_memory_mb', 'redis_memory_limit_mb',
  'db_cpu', 'db_cpu_limit', 'db_memory_mb', 'db_memory_limit_mb', 'db_storage_gi', 'db_max_connections',
  'labels', 'annotations', 'service_account_name', 'image_pull_secrets', 'volumes', 'volume_mounts', 'init_containers', 'sidecars',
];

/** A resource_spec as served: all 40 keys, those not given null. */
export const resourceSpec = (given: Record<string, unknown>) => Object.fromEntries(RESOURCE_SPEC_KEYS.map((key) => [key, given[key] ?? null]));

/** A source_config as served: every key, those not given null, deployment_type `dev` unless given. */
export const sourceConfig = (given: Record<string, unknown> = {}) => ({
  integration_id: null, repo_url: null, build_on_push: null, custom_url: null, resource_spec: null,
  listener_id: null, listener_config: null, install_command: null, build_command: null, deployment_type: 'dev', ...given,
});

/** A source_revision_config as served (a Deployment's is required, never null: §3.3). */
export const revisionConfig = (given: Record<string, unknown> = {}) => ({
  repo_ref: null, graph_config_path: null, image_uri: null, source_tarball_path: null, repo_commit_sha: null, ...given,
});

export interface RecordFields {
  name: string;
  source: string;
  source_config?: Record<string, unknown>;
  source_revision_config?: Record<string, unknown>;
  secrets?: { name: string; value: string }[];
  secret_references?: { name: string; secret_name: string; secret_key: string }[];
  status?: string;
}

/** What the service decides when it writes: ids and times (checked for their form by `writtenParts`). */
export interface Written {
  id: string;
  tenant_id: string;
  created_at: string;
  updated_at: string;
  latest_revision_id: string | null;
}

/** A deployment record a write made: `fields` as sent (completed), `written` as the service chose them. */
export const deploymentRecord = (fields: RecordFields, written: Written) => ({
  name: fields.name,
  source_config: sourceConfig(fields.source_config),
  source_revision_config: revisionConfig(fields.source_revision_config),
  secrets: fields.secrets ?? [],
  id: written.id,
  tenant_id: written.tenant_id,
  created_at: written.created_at,
  updated_at: written.updated_at,
  latest_revision_id: written.latest_revision_id,
  active_revision_id: null,
  secret_references: fields.secret_references ?? [],
  image_version: null,
  status: fields.status ?? 'AWAITING_DATABASE',
  source: fields.source,
});

/** The parts of a record the service chose, after checking their form; `tenantId` is the one it must be. */
export function writtenParts(json: any, tenantId: string): Written {
  expect(json.id).toMatch(UUID);
  expect(json.created_at).toMatch(TIMESTAMP);
  expect(json.updated_at).toMatch(TIMESTAMP);
  if (json.latest_revision_id !== null) expect(json.latest_revision_id).toMatch(UUID);
  return { id: json.id, tenant_id: tenantId, created_at: json.created_at, updated_at: json.updated_at, latest_revision_id: json.latest_revision_id };
}
