import { builder } from '../../graphql/builder.ts';
import type { DeploymentType } from './deployment-enums.ts';
import { DeploymentTypeEnum } from './deployment-enums.graphql.ts';
import type { ResourceSpec } from './resource-spec.embeddable.ts';
import { ResourceSpecRef } from './resource-spec.graphql.ts';
import type { ListenerConfig, SourceConfig, SourceRevisionConfig } from './source-config.embeddable.ts';

/** `source_config` as the legacy record nests it: the stored config plus the resource spec and the tier. */
export interface SourceConfigView {
  config: SourceConfig;
  resourceSpec: ResourceSpec | null | undefined;
  deploymentType: DeploymentType;
}

export const ListenerConfigRef = builder.objectRef<ListenerConfig>('ListenerConfig').implement({
  description: 'Settings of the listener a deployment is attached to.',
  fields: (t) => ({
    k8sNamespace: t.exposeString('k8sNamespace', { nullable: true, description: 'Kubernetes namespace of the listener (REST: `k8s_namespace`).' }),
  }),
});

export const SourceConfigRef = builder.objectRef<SourceConfigView>('SourceConfig').implement({
  description: 'How a deployment is built and run (REST: `source_config`).',
  fields: (t) => ({
    integrationId: t.field({
      type: 'UUID', nullable: true, description: 'Code-host integration the source repository is reached through.',
      resolve: ({ config }) => config.integrationId ?? null,
    }),
    repoUrl: t.string({ nullable: true, description: 'URL of the source repository.', resolve: ({ config }) => config.repoUrl ?? null }),
    buildOnPush: t.boolean({ nullable: true, description: 'Whether a push to the repository starts a new build.', resolve: ({ config }) => config.buildOnPush ?? null }),
    customUrl: t.string({ nullable: true, description: 'Custom URL the deployment is served at.', resolve: ({ config }) => config.customUrl ?? null }),
    resourceSpec: t.field({
      type: ResourceSpecRef, nullable: true, description: 'Scaling and compute settings.',
      resolve: ({ resourceSpec }) => resourceSpec ?? null,
    }),
    listenerId: t.field({ type: 'UUID', nullable: true, description: 'Listener the deployment is attached to.', resolve: ({ config }) => config.listenerId ?? null }),
    listenerConfig: t.field({
      type: ListenerConfigRef, nullable: true, description: 'Settings of that listener.',
      resolve: ({ config }) => config.listenerConfig ?? null,
    }),
    installCommand: t.string({ nullable: true, description: 'Command that installs dependencies before the build.', resolve: ({ config }) => config.installCommand ?? null }),
    buildCommand: t.string({ nullable: true, description: 'Command that builds the application.', resolve: ({ config }) => config.buildCommand ?? null }),
    deploymentType: t.field({ type: DeploymentTypeEnum, description: 'Service tier.', resolve: ({ deploymentType }) => deploymentType }),
  }),
});

export const SourceRevisionConfigRef = builder.objectRef<SourceRevisionConfig>('SourceRevisionConfig').implement({
  description: 'Which revision of the source is deployed (REST: `source_revision_config`).',
  fields: (t) => ({
    repoRef: t.exposeString('repoRef', { nullable: true, description: 'Branch, tag or other ref of the repository.' }),
    graphConfigPath: t.exposeString('graphConfigPath', { nullable: true, description: 'Path of the application\'s configuration file in the repository.' }),
    imageUri: t.exposeString('imageUri', { nullable: true, description: 'Container image to deploy.' }),
    sourceTarballPath: t.exposeString('sourceTarballPath', { nullable: true, description: 'Location of the uploaded source archive.' }),
    repoCommitSha: t.exposeString('repoCommitSha', { nullable: true, description: 'Commit deployed.' }),
  }),
});
