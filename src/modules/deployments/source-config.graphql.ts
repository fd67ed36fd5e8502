import { builder } from '../../graphql/builder.ts';
import { columnsOf, fromSameRow } from '../../graphql/selected-columns.ts';
import type { DeploymentType } from './deployment-enums.ts';
import { DeploymentTypeEnum } from './deployment-enums.graphql.ts';
import { ResourceSpecRef, ResourceSpecView } from './resource-spec.graphql.ts';
import { camelCaseViewClass } from '../../graphql/field-views.ts';
import type {
  StoredListenerConfig, StoredResourceSpec, StoredSourceConfig, StoredSourceRevisionConfig,
} from './deployment-read-model.ts';

// The parents are views of the stored jsonb objects, whose keys are the legacy (snake_case) ones, under the
// fields' names. SourceConfig is made from three columns of the deployment row; its fields say which one each
// reads (see selected-columns.ts).

/**
 * `source_config` as the legacy record nests it, from three columns of the row: the stored config plus the
 * resource spec and the tier, read under the fields' names (see graphql/field-views.ts).
 */
export class SourceConfigView {
  readonly #config: StoredSourceConfig;
  readonly deploymentType: DeploymentType;
  /**
   * Null when the column is. Made once, as a property: graphql-jit reads a nested field through its parent's
   * every time (`view.resourceSpec.cpu`, three or four times a field), and a getter made a new view for each
   * read, about 150 per record (docs/performance.md#one-view-per-object).
   */
  readonly resourceSpec: ResourceSpecView | null;

  constructor(config: StoredSourceConfig, resourceSpec: StoredResourceSpec | null | undefined, deploymentType: DeploymentType) {
    this.#config = config;
    this.deploymentType = deploymentType;
    this.resourceSpec = resourceSpec ? new ResourceSpecView(resourceSpec) : null;
  }

  get integrationId() { return this.#config.integration_id; }
  get repoUrl() { return this.#config.repo_url; }
  get buildOnPush() { return this.#config.build_on_push; }
  get customUrl() { return this.#config.custom_url; }
  get listenerId() { return this.#config.listener_id; }
  get listenerConfig() { return this.#config.listener_config; }
  get installCommand() { return this.#config.install_command; }
  get buildCommand() { return this.#config.build_command; }
}

export const ListenerConfigRef = builder.objectRef<StoredListenerConfig>('ListenerConfig').implement({
  description: 'Settings of the listener a deployment is attached to.',
  fields: (t) => ({
    k8sNamespace: t.exposeString('k8s_namespace', { nullable: true, description: 'Kubernetes namespace of the listener (REST: `k8s_namespace`).' }),
  }),
});

export const SourceConfigRef = builder.objectRef<SourceConfigView>('SourceConfig').implement({
  description: 'How a deployment is built and run (REST: `source_config`).',
  fields: (t) => ({
    integrationId: t.expose('integrationId', { type: 'UUID', nullable: true, extensions: columnsOf('source_config'), description: 'Code-host integration the source repository is reached through.' }),
    repoUrl: t.exposeString('repoUrl', { nullable: true, extensions: columnsOf('source_config'), description: 'URL of the source repository.' }),
    buildOnPush: t.exposeBoolean('buildOnPush', { nullable: true, extensions: columnsOf('source_config'), description: 'Whether a push to the repository starts a new build.' }),
    customUrl: t.exposeString('customUrl', { nullable: true, extensions: columnsOf('source_config'), description: 'Custom URL the deployment is served at.' }),
    // Its fields say which keys of the column they read.
    resourceSpec: t.expose('resourceSpec', { type: ResourceSpecRef, nullable: true, extensions: fromSameRow('resource_spec.'), description: 'Scaling and compute settings.' }),
    listenerId: t.expose('listenerId', { type: 'UUID', nullable: true, extensions: columnsOf('source_config'), description: 'Listener the deployment is attached to.' }),
    listenerConfig: t.expose('listenerConfig', { type: ListenerConfigRef, nullable: true, extensions: columnsOf('source_config'), description: 'Settings of that listener.' }),
    installCommand: t.exposeString('installCommand', { nullable: true, extensions: columnsOf('source_config'), description: 'Command that installs dependencies before the build.' }),
    buildCommand: t.exposeString('buildCommand', { nullable: true, extensions: columnsOf('source_config'), description: 'Command that builds the application.' }),
    deploymentType: t.expose('deploymentType', { type: DeploymentTypeEnum, extensions: columnsOf('deployment_type'), description: 'Service tier.' }),
  }),
});

const SOURCE_REVISION_CONFIG_KEYS = ['repo_ref', 'graph_config_path', 'image_uri', 'source_tarball_path', 'repo_commit_sha'] as const;
/** `source_revision_config` under the fields' names (see graphql/field-views.ts). */
export const SourceRevisionConfigView = camelCaseViewClass<StoredSourceRevisionConfig>('SourceRevisionConfigView', SOURCE_REVISION_CONFIG_KEYS);
export type SourceRevisionConfigView = InstanceType<typeof SourceRevisionConfigView>;

export const SourceRevisionConfigRef = builder.objectRef<SourceRevisionConfigView>('SourceRevisionConfig').implement({
  description: 'Which revision of the source is deployed (REST: `source_revision_config`).',
  fields: (t) => ({
    repoRef: t.exposeString('repoRef', { nullable: true, description: 'Branch, tag or other ref of the repository.' }),
    graphConfigPath: t.exposeString('graphConfigPath', { nullable: true, description: 'Path of the application\'s configuration file in the repository.' }),
    imageUri: t.exposeString('imageUri', { nullable: true, description: 'Container image to deploy.' }),
    sourceTarballPath: t.exposeString('sourceTarballPath', { nullable: true, description: 'Location of the uploaded source archive.' }),
    repoCommitSha: t.exposeString('repoCommitSha', { nullable: true, description: 'Commit deployed.' }),
  }),
});
