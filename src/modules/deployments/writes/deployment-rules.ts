// The rules a write's values must keep beyond their types and ranges (which the request schema checks), as
// docs/decisions.md#writes settles the original's open points. Every problem is reported at once, each at
// its place in the legacy body, as pydantic reports a model validator's errors.
import type { DeploymentSource } from '../deployment-enums.ts';
import type { DeploymentReadModel } from '../deployment-read-model.ts';
import {
  IMMUTABLE_SOURCE_CONFIG_NAMES, SOURCE_CONFIG_FIELDS, SOURCE_REVISION_CONFIG_FIELDS, sourcesOf,
} from '../source-config-fields.ts';
import { valueError, type ValueProblem } from './write-problems.ts';
import type {
  CreateRequest, PatchRequest, SecretReferenceRequest, SecretRequest, SourceConfigRequest, SourceRevisionConfigRequest,
} from './write-requests.ts';

/** A name becomes part of resource names (its tracing project, the data plane's objects): a DNS label. */
export const NAME_PATTERN = '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$';
const NAME = new RegExp(NAME_PATTERN);

/** Which sources each key of source_revision_config belongs to (the original's field descriptions). */
export const REVISION_CONFIG_SOURCES = sourcesOf(SOURCE_REVISION_CONFIG_FIELDS);

/** Which sources each source-specific key belongs to (source-config-fields.ts). */
const ONLY_FOR: Record<string, readonly DeploymentSource[]> = {
  ...REVISION_CONFIG_SOURCES,
  ...sourcesOf(SOURCE_CONFIG_FIELDS),
};

/** The deployment as a PATCH finds it (its locked row): what the rules compare against. */
export type StoredDeployment = Pick<DeploymentReadModel, 'source' | 'deployment_type' | 'source_config' | 'source_revision_config'>;

export function createProblems(request: CreateRequest): ValueProblem[] {
  const problems: ValueProblem[] = [];
  if (!NAME.test(request.name)) {
    problems.push({
      type: 'string_pattern_mismatch', loc: ['name'], msg: `String should match pattern '${NAME_PATTERN}'`,
      input: request.name, ctx: { pattern: NAME_PATTERN },
    });
  }
  const { source, source_config: config, source_revision_config: revision } = request;
  if (source === 'github') {
    // What a repository build needs to find its code (an internal_source archive comes later, by PATCH).
    for (const [part, key] of [['source_config', 'integration_id'], ['source_config', 'repo_url'], ['source_revision_config', 'repo_ref'], ['source_revision_config', 'graph_config_path']] as const) {
      const value = part === 'source_config' ? config[key as 'repo_url'] : revision[key as 'repo_ref'];
      if (value == null) problems.push(valueError([part, key], value, `${key} is required for the source 'github'`));
    }
  }
  if (source === 'internal_source' && revision.source_tarball_path != null) {
    // Only a path issued for the deployment is accepted (docs/decisions.md#source-archives), and there is none yet.
    problems.push(valueError(['source_revision_config', 'source_tarball_path'], revision.source_tarball_path,
      'a create cannot name a source archive: create the deployment, ask POST /v2/deployments/{deployment_id}/upload-url for an upload, PUT the archive, then PATCH its object_path in'));
  }
  problems.push(...sourceProblems(source, config, revision, revision.repo_ref));
  problems.push(...listProblems(request.secrets, request.secret_references, source));
  return problems;
}

export function patchProblems(stored: StoredDeployment, request: PatchRequest): ValueProblem[] {
  const problems: ValueProblem[] = [];
  const source = request.revision_source ?? stored.source;
  // A CLI deploys an internal deployment either way (a local image build, or a remote one from an archive).
  const internal = (s: DeploymentSource) => s === 'internal_docker' || s === 'internal_source';
  if (request.revision_source && request.revision_source !== stored.source && !(internal(stored.source) && internal(request.revision_source))) {
    problems.push(valueError(['revision_source'], request.revision_source, `a '${stored.source}' deployment cannot build a revision of the source '${request.revision_source}'`));
  }
  const config = request.source_config ?? {};
  const immutable = IMMUTABLE_SOURCE_CONFIG_NAMES.map((key): [string, unknown, unknown] =>
    [key, config[key], key === 'deployment_type' ? stored.deployment_type : stored.source_config[key]]);
  for (const [key, sent, current] of immutable) {
    if (sent != null && sent !== (current ?? null)) problems.push(valueError(['source_config', key], sent, `${key} cannot be changed`));
  }
  const namespace = config.listener_config?.k8s_namespace;
  if (namespace != null && namespace !== (stored.source_config.listener_config?.k8s_namespace ?? null)) {
    problems.push(valueError(['source_config', 'listener_config', 'k8s_namespace'], namespace, 'k8s_namespace cannot be changed'));
  }
  const revision = request.source_revision_config ?? {};
  problems.push(...sourceProblems(source, config, revision, revision.repo_ref ?? stored.source_revision_config?.repo_ref, immutable.map(([key]) => key)));
  problems.push(...listProblems(request.secrets ?? [], request.secret_references, stored.source));
  return problems;
}

/** Keys sent for a source they do not belong to, and the combinations the original forbids. */
function sourceProblems(
  source: DeploymentSource, config: SourceConfigRequest, revision: SourceRevisionConfigRequest,
  repoRef: string | null | undefined, checkedElsewhere: string[] = [],
): ValueProblem[] {
  const problems: ValueProblem[] = [];
  const sent: [string, string, unknown][] = [
    ...Object.entries(revision).map(([key, value]) => ['source_revision_config', key, value] as [string, string, unknown]),
    ...Object.entries(config).map(([key, value]) => ['source_config', key, value] as [string, string, unknown]),
  ];
  for (const [part, key, value] of sent) {
    const allowed = ONLY_FOR[key];
    if (value == null || !allowed || allowed.includes(source) || checkedElsewhere.includes(key)) continue;
    problems.push(valueError([part, key], value, `${key} applies only to the source${allowed.length > 1 ? 's' : ''} ${allowed.map((s) => `'${s}'`).join(', ')}, not '${source}'`));
  }
  if (config.build_on_push === true && repoRef?.startsWith('refs/tags/')) {
    problems.push(valueError(['source_config', 'build_on_push'], true, 'build_on_push must be false when repo_ref is a tag (refs/tags/…)'));
  }
  if (revision.source_tarball_path != null && revision.graph_config_path == null && source === 'internal_source') {
    problems.push(valueError(['source_revision_config', 'graph_config_path'], null, 'graph_config_path is required with source_tarball_path'));
  }
  return problems;
}

/** Names are unique within each list (each becomes an environment variable); references are external_docker's. */
function listProblems(secrets: SecretRequest[], references: SecretReferenceRequest[] | null | undefined, source: DeploymentSource): ValueProblem[] {
  const problems: ValueProblem[] = [];
  for (const [key, list] of [['secrets', secrets], ['secret_references', references ?? []]] as const) {
    const seen = new Set<string>();
    list.forEach((item, index) => {
      if (seen.has(item.name)) problems.push(valueError([key, index, 'name'], item.name, `the name "${item.name}" appears more than once`));
      seen.add(item.name);
    });
  }
  if (references && references.length > 0 && source !== 'external_docker') {
    problems.push(valueError(['secret_references'], references, `secret_references apply only to the source 'external_docker', not '${source}'`));
  }
  return problems;
}
