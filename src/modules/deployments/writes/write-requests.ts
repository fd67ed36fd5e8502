// The bodies of the deployment writes, once validated (validate-write-request.ts): the original's
// DeploymentCreateRequest and DeploymentPatchRequest in their legacy snake_case keys, unknown keys dropped.
// Both doors reach the writer with these: the REST door from its JSON body, GraphQL from its input objects.
import type { DeploymentSource, DeploymentType } from '../deployment-enums.ts';
import type { StoredResourceSpec } from '../deployment-read-model.ts';

export interface SourceConfigRequest {
  integration_id?: string | null;
  repo_url?: string | null;
  deployment_type?: DeploymentType | null;
  build_on_push?: boolean | null;
  custom_url?: string | null;
  resource_spec?: StoredResourceSpec | null;
  listener_id?: string | null;
  listener_config?: { k8s_namespace?: string | null } | null;
  install_command?: string | null;
  build_command?: string | null;
}

export interface SourceRevisionConfigRequest {
  repo_ref?: string | null;
  graph_config_path?: string | null;
  image_uri?: string | null;
  source_tarball_path?: string | null;
}

export interface SecretRequest {
  name: string;
  value: string;
}

export interface SecretReferenceRequest {
  name: string;
  secret_name: string;
  secret_key: string;
}

export interface CreateRequest {
  name: string;
  source: DeploymentSource;
  source_config: SourceConfigRequest;
  source_revision_config: SourceRevisionConfigRequest;
  secrets: SecretRequest[];
  secret_references?: SecretReferenceRequest[] | null;
}

export interface PatchRequest {
  revision_source?: Exclude<DeploymentSource, 'external_docker'> | null;
  source_config?: SourceConfigRequest | null;
  source_revision_config?: SourceRevisionConfigRequest | null;
  secrets?: SecretRequest[] | null;
  secret_references?: SecretReferenceRequest[] | null;
}

/** The keys of source_revision_config whose value names something to build. */
export const BUILD_KEYS = ['repo_ref', 'image_uri', 'source_tarball_path'] as const;
/** The keys whose non-null value in a PATCH makes a new revision (with `secrets` and `resource_spec`). */
export const REVISION_KEYS = ['repo_ref', 'graph_config_path', 'image_uri', 'source_tarball_path'] as const;
