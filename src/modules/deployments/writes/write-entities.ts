// The legacy request objects (snake_case) as the entities' embeddables hold them (camelCase properties, stored
// under the legacy keys): one place that knows both spellings for the writes.
import { camelCase, camelCaseKeys, mapKeys, type CamelCase } from '../../common/legacy-json.ts';
import type { StoredResourceSpec, StoredSourceConfig, StoredSourceRevisionConfig } from '../deployment-read-model.ts';
import { RESOURCE_SPEC_SCALAR_NAMES, RESOURCE_SPEC_SCALARS } from '../resource-spec-fields.ts';
import {
  CHANGEABLE_SOURCE_CONFIG_NAMES, REVISION_REQUEST_NAMES, STORED_SOURCE_CONFIG_NAMES, revisionConfigFields, sourceConfigFields,
  type RevisionConfigName, type StoredSourceConfigName,
} from '../source-config-fields.ts';
import type { SourceConfigRequest, SourceRevisionConfigRequest } from './write-requests.ts';

/** A revision's source_revision_config as its embeddable takes it: every key of source-config-fields.ts, camelCase. */
export type RevisionConfig = { [Name in RevisionConfigName as CamelCase<Name>]: string | null };

/** The CPU amounts the original rounds to one decimal (docs/legacy-api.md#resource-specification). */
const ROUNDED = RESOURCE_SPEC_SCALAR_NAMES.filter((name) => ['cpu', 'cpuLimit'].includes(RESOURCE_SPEC_SCALARS[name].request));

/** The resource spec as its embeddable takes it: top-level keys camelCase, Kubernetes parts as they are. */
export function resourceSpecEntity(spec: StoredResourceSpec | null | undefined): Record<string, unknown> | null {
  if (!spec) return null;
  const rounded: Record<string, unknown> = { ...spec };
  for (const key of ROUNDED) {
    const value = spec[key];
    if (typeof value === 'number') rounded[key] = Math.round(value * 10) / 10;
  }
  return mapKeys(rounded, camelCase);
}

/** The stored source_config of a new deployment (deployment_type and resource_spec have columns of their own). */
export function sourceConfigEntity(config: SourceConfigRequest): Record<string, unknown> {
  const sent = config as Record<StoredSourceConfigName, unknown>;
  const value = (_field: unknown, name: string) => sent[name as StoredSourceConfigName] ?? null;
  return camelCaseKeys(sourceConfigFields({
    text: value, bool: value,
    uuid: (_field, name) => (sent[name as StoredSourceConfigName] as string | null | undefined)?.toLowerCase() ?? null,
    listenerConfig: () => (config.listener_config ? { k8sNamespace: config.listener_config.k8s_namespace ?? null } : null),
  }, STORED_SOURCE_CONFIG_NAMES));
}

/**
 * What a PATCH's source_config changes, under the stored keys (the jsonb's, which are the request's): the keys
 * it sends non-null that may change (the rules refuse the others).
 */
export function sourceConfigChanges(config: SourceConfigRequest): Partial<StoredSourceConfig> {
  const changes: Record<string, unknown> = {};
  for (const key of CHANGEABLE_SOURCE_CONFIG_NAMES) {
    if (config[key] != null) changes[key] = config[key];
  }
  return changes;
}

// Only the keys a request may send are read from one: a body's other keys are not, whatever the validation keeps.
const requestable = new Set<string>(REVISION_REQUEST_NAMES);

/** A revision's config as stored, from a request's: the keys it sends, null for the others (the commit is the build's to tell). */
export function storedRevisionConfig(config: SourceRevisionConfigRequest): StoredSourceRevisionConfig {
  const sent = config as Partial<Record<RevisionConfigName, string | null>>;
  return revisionConfigFields({ text: (_field, name) => (requestable.has(name) ? sent[name as RevisionConfigName] ?? null : null) });
}

/** A stored revision config as its embeddable takes it (camelCase properties). */
export const revisionConfigEntity = (config: StoredSourceRevisionConfig): RevisionConfig => camelCaseKeys(config) as RevisionConfig;
