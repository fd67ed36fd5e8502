// `source_config` and `source_revision_config` of a deployment, stored as jsonb with legacy keys.
// The resource spec is its own column (see deployment.entity.ts); the legacy JSON nests it back here.
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const ListenerConfigSchema = defineEntity({
  name: 'ListenerConfig',
  embeddable: true,
  properties: {
    k8sNamespace: p.text().fieldName('k8s_namespace').nullable(),
  },
});
export type ListenerConfig = InferEntity<typeof ListenerConfigSchema>;

export const SourceConfigSchema = defineEntity({
  name: 'SourceConfig',
  embeddable: true,
  properties: {
    integrationId: p.uuid().nullable(),
    repoUrl: p.text().nullable(),
    buildOnPush: p.boolean().nullable(),
    customUrl: p.text().nullable(),
    listenerId: p.uuid().nullable(),
    listenerConfig: () => p.embedded(ListenerConfigSchema).object().nullable(),
    installCommand: p.text().nullable(),
    buildCommand: p.text().nullable(),
  },
});
export type SourceConfig = InferEntity<typeof SourceConfigSchema>;

export const SourceRevisionConfigSchema = defineEntity({
  name: 'SourceRevisionConfig',
  embeddable: true,
  properties: {
    repoRef: p.text().nullable(),
    graphConfigPath: p.text().nullable(),
    imageUri: p.text().nullable(),
    sourceTarballPath: p.text().nullable(),
    repoCommitSha: p.text().nullable(),
  },
});
export type SourceRevisionConfig = InferEntity<typeof SourceRevisionConfigSchema>;
