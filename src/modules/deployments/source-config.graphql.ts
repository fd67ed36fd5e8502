import { builder } from '../../graphql/builder.ts';
import { columnsOf, fromSameRow } from '../../graphql/selected-columns.ts';
import type { DeploymentType } from './deployment-enums.ts';
import { DeploymentTypeEnum } from './deployment-enums.graphql.ts';
import { ResourceSpecRef } from './resource-spec.graphql.ts';
import type {
  StoredListenerConfig, StoredResourceSpec, StoredSourceConfig, StoredSourceRevisionConfig,
} from './deployment-row.ts';

// The parents are the stored jsonb objects, whose keys are the legacy (snake_case) ones. SourceConfig is made
// from three columns of the deployment row; its fields say which one each reads (see selected-columns.ts).

/** `source_config` as the legacy record nests it: the stored config plus the resource spec and the tier. */
export interface SourceConfigView {
  config: StoredSourceConfig;
  resourceSpec: StoredResourceSpec | null | undefined;
  deploymentType: DeploymentType;
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
    integrationId: t.field({
      type: 'UUID', nullable: true, extensions: columnsOf('source_config'), description: 'Code-host integration the source repository is reached through.',
      resolve: ({ config }) => config.integration_id ?? null,
    }),
    repoUrl: t.string({ nullable: true, extensions: columnsOf('source_config'), description: 'URL of the source repository.', resolve: ({ config }) => config.repo_url ?? null }),
    buildOnPush: t.boolean({ nullable: true, extensions: columnsOf('source_config'), description: 'Whether a push to the repository starts a new build.', resolve: ({ config }) => config.build_on_push ?? null }),
    customUrl: t.string({ nullable: true, extensions: columnsOf('source_config'), description: 'Custom URL the deployment is served at.', resolve: ({ config }) => config.custom_url ?? null }),
    resourceSpec: t.field({
      // Null when the column is; its fields say which keys of the column they read.
      type: ResourceSpecRef, nullable: true, extensions: fromSameRow('resource_spec.'), description: 'Scaling and compute settings.',
      resolve: ({ resourceSpec }) => resourceSpec ?? null,
    }),
    listenerId: t.field({ type: 'UUID', nullable: true, extensions: columnsOf('source_config'), description: 'Listener the deployment is attached to.', resolve: ({ config }) => config.listener_id ?? null }),
    listenerConfig: t.field({
      type: ListenerConfigRef, nullable: true, extensions: columnsOf('source_config'), description: 'Settings of that listener.',
      resolve: ({ config }) => config.listener_config ?? null,
    }),
    installCommand: t.string({ nullable: true, extensions: columnsOf('source_config'), description: 'Command that installs dependencies before the build.', resolve: ({ config }) => config.install_command ?? null }),
    buildCommand: t.string({ nullable: true, extensions: columnsOf('source_config'), description: 'Command that builds the application.', resolve: ({ config }) => config.build_command ?? null }),
    deploymentType: t.field({ type: DeploymentTypeEnum, extensions: columnsOf('deployment_type'), description: 'Service tier.', resolve: ({ deploymentType }) => deploymentType }),
  }),
});

export const SourceRevisionConfigRef = builder.objectRef<StoredSourceRevisionConfig>('SourceRevisionConfig').implement({
  description: 'Which revision of the source is deployed (REST: `source_revision_config`).',
  fields: (t) => ({
    repoRef: t.exposeString('repo_ref', { nullable: true, description: 'Branch, tag or other ref of the repository.' }),
    graphConfigPath: t.exposeString('graph_config_path', { nullable: true, description: 'Path of the application\'s configuration file in the repository.' }),
    imageUri: t.exposeString('image_uri', { nullable: true, description: 'Container image to deploy.' }),
    sourceTarballPath: t.exposeString('source_tarball_path', { nullable: true, description: 'Location of the uploaded source archive.' }),
    repoCommitSha: t.exposeString('repo_commit_sha', { nullable: true, description: 'Commit deployed.' }),
  }),
});
