// The legacy request objects (snake_case) as the entities' embeddables hold them (camelCase properties, stored
// under the legacy keys): one place that knows both spellings for the writes.
import { camelCase, mapKeys } from '../../common/legacy-json.ts';
import type { StoredResourceSpec } from '../deployment-read-model.ts';
import { RESOURCE_SPEC_SCALAR_NAMES, RESOURCE_SPEC_SCALARS } from '../resource-spec-fields.ts';
import type { SourceConfigRequest, SourceRevisionConfigRequest } from './write-requests.ts';

export interface RevisionConfig {
  repoRef: string | null;
  graphConfigPath: string | null;
  imageUri: string | null;
  sourceTarballPath: string | null;
  repoCommitSha: string | null;
}

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
  return {
    integrationId: config.integration_id?.toLowerCase() ?? null, repoUrl: config.repo_url ?? null,
    buildOnPush: config.build_on_push ?? null, customUrl: config.custom_url ?? null,
    listenerId: config.listener_id?.toLowerCase() ?? null,
    listenerConfig: config.listener_config ? { k8sNamespace: config.listener_config.k8s_namespace ?? null } : null,
    installCommand: config.install_command ?? null, buildCommand: config.build_command ?? null,
  };
}

/** What a PATCH's source_config changes: the keys it sends non-null that may change (the rules refuse the others). */
export function sourceConfigChanges(config: SourceConfigRequest): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  if (config.build_on_push != null) changes.buildOnPush = config.build_on_push;
  if (config.custom_url != null) changes.customUrl = config.custom_url;
  if (config.install_command != null) changes.installCommand = config.install_command;
  if (config.build_command != null) changes.buildCommand = config.build_command;
  return changes;
}

export function revisionConfigEntity(config: SourceRevisionConfigRequest): RevisionConfig {
  return {
    repoRef: config.repo_ref ?? null, graphConfigPath: config.graph_config_path ?? null, imageUri: config.image_uri ?? null,
    sourceTarballPath: config.source_tarball_path ?? null, repoCommitSha: null,
  };
}
