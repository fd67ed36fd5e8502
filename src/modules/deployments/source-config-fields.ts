// The fields of a deployment's `source_config` and `source_revision_config` (docs/legacy-api.md), declared once:
// the request models (writes/write-request-schema.ts), the GraphQL inputs (writes/write-inputs.graphql.ts), the
// GraphQL types (source-config.graphql.ts), the embeddables (source-config.embeddable.ts), the legacy record's
// schemas (deployment-record.schema.ts) and the writes' key tables (writes/) are made from these lists. Each is
// in the legacy record's key order, which the emitted records keep; the request models' order, which pydantic
// reports errors in, is the record's but where said below.
import type { DeploymentSource } from './deployment-enums.ts';

/**
 * What a field holds. Every consumer maps a kind to its own type: `text` is a string, `uuid` a UUID, `bool`
 * a boolean; the other three are one field's each (the service tier, the resource spec and the listener's
 * settings), which the consumers give their own enum or object types.
 */
export type SourceFieldKind = 'text' | 'uuid' | 'bool' | 'deploymentType' | 'resourceSpec' | 'listenerConfig';

export interface SourceField {
  readonly kind: SourceFieldKind;
  /** The GraphQL output field's description. */
  readonly description: string;
  /** The GraphQL input field's; a field without one is not written (the request model has no such key). */
  readonly inputDescription?: string;
  /** The request model's (the OpenAPI document's), where the original's model gives one. */
  readonly requestDescription?: string;
  /**
   * The deployment's own column the field is stored in, rather than in the `source_config` jsonb: the
   * embeddable and the stored object leave it out; the legacy record nests it back.
   */
  readonly column?: 'deployment_type' | 'resource_spec';
  /** The sources it applies to, where it applies only to some; the write rules refuse it for the others. */
  readonly sources?: readonly DeploymentSource[];
  /** Cannot be changed by a PATCH (a different value is refused). */
  readonly immutable?: true;
  /** Its non-null value names something to build (source_revision_config only). */
  readonly builds?: true;
}

export const SOURCE_CONFIG_FIELDS = {
  integration_id: {
    kind: 'uuid', sources: ['github'], immutable: true,
    description: 'Code-host integration the source repository is reached through.',
    inputDescription: 'Code-host integration of the repository (github only); cannot be changed.',
    requestDescription: 'Git-host integration; immutable; github only.',
  },
  repo_url: {
    kind: 'text', sources: ['github'], immutable: true,
    description: 'URL of the source repository.',
    inputDescription: 'Repository URL (github only); cannot be changed.',
    requestDescription: 'Immutable; github only.',
  },
  build_on_push: {
    kind: 'bool', sources: ['github'],
    description: 'Whether a push to the repository starts a new build.',
    inputDescription: 'Build a new revision on every push to `repoRef` (github only; not with a tag).',
    requestDescription: 'Not with a repo_ref under refs/tags/; github only.',
  },
  custom_url: {
    kind: 'text', sources: ['external_docker'],
    description: 'Custom URL the deployment is served at.',
    inputDescription: 'Custom URL (external_docker only).',
    requestDescription: 'Settable for external_docker only.',
  },
  resource_spec: {
    kind: 'resourceSpec', column: 'resource_spec',
    description: 'Scaling and compute settings.',
    inputDescription: 'Scaling and compute settings; replaces the stored spec and makes a new revision.',
  },
  listener_id: {
    kind: 'uuid', sources: ['external_docker'], immutable: true,
    description: 'Listener the deployment is attached to.',
    inputDescription: 'Listener (external_docker only); cannot be changed.',
    requestDescription: 'Immutable; external_docker only.',
  },
  // Its `k8s_namespace` cannot be changed either; the rules check that one key themselves.
  listener_config: {
    kind: 'listenerConfig', sources: ['external_docker'],
    description: 'Settings of that listener.',
    inputDescription: 'Listener settings (external_docker only).',
  },
  install_command: {
    kind: 'text',
    description: 'Command that installs dependencies before the build.',
    inputDescription: 'Custom install command (JavaScript projects), run from the repository root.',
    requestDescription: 'JavaScript projects only; run from the repository root.',
  },
  build_command: {
    kind: 'text',
    description: 'Command that builds the application.',
    inputDescription: 'Custom build command (JavaScript projects), run from the config file\'s directory.',
    requestDescription: 'JavaScript projects only; run from the config file\'s directory.',
  },
  // Last in the record, third in the request model (see SOURCE_CONFIG_REQUEST_NAMES).
  deployment_type: {
    kind: 'deploymentType', column: 'deployment_type', immutable: true,
    description: 'Service tier.',
    inputDescription: 'Service tier (`DEV` when not given); cannot be changed.',
    requestDescription: 'Immutable.',
  },
} as const satisfies Record<string, SourceField>;

export const SOURCE_REVISION_CONFIG_FIELDS = {
  repo_ref: {
    kind: 'text', sources: ['github'], builds: true,
    description: 'Branch, tag or other ref of the repository.',
    inputDescription: 'Branch (`main`) or full tag ref (`refs/tags/v1.0.0`), github only.',
    requestDescription: 'A branch, or a full tag ref (refs/tags/v1.0.0); github only.',
  },
  graph_config_path: {
    kind: 'text', sources: ['github', 'internal_source'],
    description: 'Path of the application\'s configuration file in the repository.',
    inputDescription: 'Path of the config file (github and internal_source).',
    requestDescription: 'Path of the config file; required on create for github and internal_source, null otherwise.',
  },
  image_uri: {
    kind: 'text', sources: ['external_docker', 'internal_docker'], builds: true,
    description: 'Container image to deploy.',
    inputDescription: 'Docker image URI (external_docker, internal_docker).',
    requestDescription: 'Docker image URI (external_docker).',
  },
  source_tarball_path: {
    kind: 'text', sources: ['internal_source'], builds: true,
    description: 'Location of the uploaded source archive.',
    inputDescription: 'The `objectPath` `createSourceUpload` issued for this deployment, once the archive is uploaded (internal_source); any other path is refused, and a create cannot name one.',
    requestDescription: 'The object_path POST /v2/deployments/{deployment_id}/upload-url issued for this deployment, once the archive is uploaded to its upload_url; arbitrary paths are not accepted, and a create cannot name one. internal_source only.',
  },
  // Told by the build, never written: no request key, no input field.
  repo_commit_sha: {
    kind: 'text',
    description: 'Commit deployed.',
  },
} as const satisfies Record<string, SourceField>;

type SourceConfigFields = typeof SOURCE_CONFIG_FIELDS;
type RevisionConfigFields = typeof SOURCE_REVISION_CONFIG_FIELDS;
export type SourceConfigName = keyof SourceConfigFields;
export type RevisionConfigName = keyof RevisionConfigFields;

const namesOf = <Fields extends object>(fields: Fields) => Object.keys(fields) as (keyof Fields & string)[];
type NamesWhere<Fields, Has> = { [K in keyof Fields]: Fields[K] extends Has ? K : never }[keyof Fields] & string;
const namesWhere = <Fields extends Record<string, SourceField>, Has extends Partial<SourceField>>(fields: Fields, has: (field: SourceField) => boolean) =>
  namesOf(fields).filter((name) => has(fields[name]!)) as NamesWhere<Fields, Has>[];

/** source_config's keys in the legacy record's order. */
export const SOURCE_CONFIG_NAMES = namesOf(SOURCE_CONFIG_FIELDS);
/** The keys stored in the `source_config` jsonb (the embeddable's), in the record's order. */
export type StoredSourceConfigName = Exclude<SourceConfigName, NamesWhere<SourceConfigFields, { column: string }>>;
export const STORED_SOURCE_CONFIG_NAMES = SOURCE_CONFIG_NAMES.filter((name): name is StoredSourceConfigName => !('column' in SOURCE_CONFIG_FIELDS[name]));
/**
 * The request model's order (and the GraphQL input's): the original's model declares `deployment_type` after
 * `repo_url`, where the record serves it last.
 */
export const SOURCE_CONFIG_REQUEST_NAMES = (() => {
  const others = SOURCE_CONFIG_NAMES.filter((name) => name !== 'deployment_type');
  const at = others.indexOf('repo_url') + 1;
  return [...others.slice(0, at), 'deployment_type', ...others.slice(at)] as SourceConfigName[];
})();
/** The keys a PATCH cannot change, in the request's order (the order their errors are reported in). */
export const IMMUTABLE_SOURCE_CONFIG_NAMES = SOURCE_CONFIG_REQUEST_NAMES.filter((name) => 'immutable' in SOURCE_CONFIG_FIELDS[name]) as
  NamesWhere<SourceConfigFields, { immutable: true }>[];
/** The stored keys a PATCH may change: those neither immutable nor an object of their own. */
export const CHANGEABLE_SOURCE_CONFIG_NAMES = STORED_SOURCE_CONFIG_NAMES.filter((name) =>
  !('immutable' in SOURCE_CONFIG_FIELDS[name]) && SOURCE_CONFIG_FIELDS[name].kind !== 'listenerConfig') as
  Exclude<StoredSourceConfigName, NamesWhere<SourceConfigFields, { immutable: true } | { kind: 'listenerConfig' }>>[];

/** source_revision_config's keys in the legacy record's order. */
export const REVISION_CONFIG_NAMES = namesOf(SOURCE_REVISION_CONFIG_FIELDS);
/** The keys a request may send (the build tells the rest), in the record's order. */
export type RevisionRequestName = NamesWhere<RevisionConfigFields, { requestDescription: string }>;
export const REVISION_REQUEST_NAMES = namesWhere<RevisionConfigFields, { requestDescription: string }>(SOURCE_REVISION_CONFIG_FIELDS, (field) => field.requestDescription !== undefined);
/** The keys whose value names something to build. */
export const BUILD_NAMES = namesWhere<RevisionConfigFields, { builds: true }>(SOURCE_REVISION_CONFIG_FIELDS, (field) => field.builds === true);

type Make<Field> = { readonly [Kind in SourceFieldKind]?: (field: Field & SourceField, name: string) => unknown };
type Made<Fields, Table, Name extends keyof Fields> = {
  -readonly [K in Name]: Fields[K] extends { kind: infer Kind } ? Kind extends keyof Table ? Table[Kind] extends (...args: never[]) => infer Value ? Value : never : never : never
};

/**
 * An object of `make[field.kind](field, name)` under each of `names`, in their order, typed per key: the
 * request model's, the zod schema's and the embeddable's types follow each field's kind.
 */
export function sourceConfigFields<const Table extends Make<SourceField>, Name extends SourceConfigName = SourceConfigName>(
  make: Table, names: readonly Name[] = SOURCE_CONFIG_NAMES as Name[],
): Made<SourceConfigFields, Table, Name> {
  return madeOf(SOURCE_CONFIG_FIELDS, make, names) as Made<SourceConfigFields, Table, Name>;
}

/** As sourceConfigFields, for source_revision_config. */
export function revisionConfigFields<const Table extends Make<SourceField>, Name extends RevisionConfigName = RevisionConfigName>(
  make: Table, names: readonly Name[] = REVISION_CONFIG_NAMES as Name[],
): Made<RevisionConfigFields, Table, Name> {
  return madeOf(SOURCE_REVISION_CONFIG_FIELDS, make, names) as Made<RevisionConfigFields, Table, Name>;
}

function madeOf(fields: Record<string, SourceField>, make: Make<SourceField>, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.map((name) => {
    const field = fields[name]!;
    const maker = make[field.kind];
    if (!maker) throw new Error(`no ${field.kind} maker for the field ${name}`);
    return [name, maker(field, name)];
  }));
}

/** Which sources each source-specific key applies to, by key, in `fields`' order. */
export const sourcesOf = <Fields extends Record<string, SourceField>>(fields: Fields) =>
  Object.fromEntries(namesOf(fields).flatMap((name) => {
    const sources = fields[name]!.sources;
    return sources ? [[name, sources]] : [];
  })) as { [K in NamesWhere<Fields, { sources: readonly DeploymentSource[] }>]: Fields[K] extends { sources: infer Sources } ? Sources : never };
