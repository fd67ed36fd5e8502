// `source_config` and `source_revision_config` of a deployment, stored as jsonb with legacy keys.
// The resource spec is its own column (see deployment.entity.ts); the legacy JSON nests it back here.
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { camelCaseKeys } from '../common/legacy-json.ts';
import { revisionConfigFields, sourceConfigFields, STORED_SOURCE_CONFIG_NAMES } from './source-config-fields.ts';

export const ListenerConfigSchema = defineEntity({
  name: 'ListenerConfig',
  embeddable: true,
  properties: {
    k8sNamespace: p.text().fieldName('k8s_namespace').nullable(),
  },
});
export type ListenerConfig = InferEntity<typeof ListenerConfigSchema>;

// The source fields by their kind (source-config-fields.ts), under the properties' camelCase names. The
// service tier and the resource spec are columns of their own, so not here.
const STORED_PROPERTIES = {
  text: () => p.text().nullable(),
  uuid: () => p.uuid().nullable(),
  bool: () => p.boolean().nullable(),
  listenerConfig: () => () => p.embedded(ListenerConfigSchema).object().nullable(),
};

export const SourceConfigSchema = defineEntity({
  name: 'SourceConfig',
  embeddable: true,
  properties: camelCaseKeys(sourceConfigFields(STORED_PROPERTIES, STORED_SOURCE_CONFIG_NAMES)),
});
export type SourceConfig = InferEntity<typeof SourceConfigSchema>;

export const SourceRevisionConfigSchema = defineEntity({
  name: 'SourceRevisionConfig',
  embeddable: true,
  properties: camelCaseKeys(revisionConfigFields(STORED_PROPERTIES)),
});
export type SourceRevisionConfig = InferEntity<typeof SourceRevisionConfigSchema>;
