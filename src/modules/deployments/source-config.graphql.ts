import { builder } from '../../graphql/builder.ts';
import { columnsOf, fromSameRow } from '../../graphql/selected-columns.ts';
import type { DeploymentType } from './deployment-enums.ts';
import { DeploymentTypeEnum } from './deployment-enums.graphql.ts';
import { ResourceSpecRef, ResourceSpecView } from './resource-spec.graphql.ts';
import { camelCaseViewClass } from '../../graphql/field-views.ts';
import { camelCase, camelCaseKeys } from '../common/legacy-json.ts';
import {
  REVISION_CONFIG_NAMES, STORED_SOURCE_CONFIG_NAMES, revisionConfigFields, sourceConfigFields, type SourceField,
} from './source-config-fields.ts';
import type {
  StoredListenerConfig, StoredResourceSpec, StoredSourceConfig, StoredSourceRevisionConfig,
} from './deployment-read-model.ts';

// The parents are views of the stored jsonb objects, whose keys are the legacy (snake_case) ones, under the
// fields' names. SourceConfig is made from three columns of the deployment row; its fields say which one each
// reads (see selected-columns.ts). Both types' fields are made from source-config-fields.ts.

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/**
 * The source fields by their kind (source-config-fields.ts), each exposing its view's getter of the same name.
 * `stored` is what a field stored in the object's own column declares it reads (source_config's say so; the
 * revision config's fields declare nothing, as their parent's field does).
 */
const sourceOutputFields = <View extends object>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, View>, stored?: ReturnType<typeof columnsOf>) => {
  const options = (field: SourceField) => ({ nullable: true, ...(stored && { extensions: stored }), description: field.description }) as const;
  // The getter's name; the generic view type cannot say it has one.
  const view = (name: string) => camelCase(name) as never;
  return {
    text: (field: SourceField, name: string) => t.exposeString(view(name), options(field)),
    uuid: (field: SourceField, name: string) => t.expose(view(name), { type: 'UUID', ...options(field) }),
    bool: (field: SourceField, name: string) => t.exposeBoolean(view(name), options(field)),
    listenerConfig: (field: SourceField, name: string) => t.expose(view(name), { type: ListenerConfigRef, ...options(field) }),
    // The two nested from their own columns: the resource spec's fields say which keys of it they read.
    resourceSpec: (field: SourceField, name: string) => t.expose(view(name), {
      type: ResourceSpecRef, nullable: true, extensions: fromSameRow('resource_spec.'), description: field.description,
    }),
    deploymentType: (field: SourceField, name: string) => t.expose(view(name), {
      type: DeploymentTypeEnum, extensions: columnsOf('deployment_type'), description: field.description,
    } as never), // non-null: every deployment has a tier (the generic view type hides that from Pothos)
  };
};

/** The stored `source_config` under the fields' names (see graphql/field-views.ts). */
const StoredSourceConfigView = camelCaseViewClass<StoredSourceConfig>('StoredSourceConfigView', STORED_SOURCE_CONFIG_NAMES);

/**
 * `source_config` as the legacy record nests it, from three columns of the row: the stored config plus the
 * resource spec and the tier, read under the fields' names (see graphql/field-views.ts).
 */
export class SourceConfigView extends StoredSourceConfigView {
  readonly deploymentType: DeploymentType;
  /**
   * Null when the column is. Made once, as a property: graphql-jit reads a nested field through its parent's
   * every time (`view.resourceSpec.cpu`, three or four times a field), and a getter made a new view for each
   * read, about 150 per record (docs/performance.md#one-view-per-object).
   */
  readonly resourceSpec: ResourceSpecView | null;

  constructor(config: StoredSourceConfig, resourceSpec: StoredResourceSpec | null | undefined, deploymentType: DeploymentType) {
    super(config);
    this.deploymentType = deploymentType;
    this.resourceSpec = resourceSpec ? new ResourceSpecView(resourceSpec) : null;
  }
}

export const ListenerConfigRef = builder.objectRef<StoredListenerConfig>('ListenerConfig').implement({
  description: 'Settings of the listener a deployment is attached to.',
  fields: (t) => ({
    k8sNamespace: t.exposeString('k8s_namespace', { nullable: true, description: 'Kubernetes namespace of the listener (REST: `k8s_namespace`).' }),
  }),
});

export const SourceConfigRef = builder.objectRef<SourceConfigView>('SourceConfig').implement({
  description: 'How a deployment is built and run (REST: `source_config`).',
  fields: (t) => camelCaseKeys(sourceConfigFields(sourceOutputFields(t, columnsOf('source_config')))),
});

/** `source_revision_config` under the fields' names (see graphql/field-views.ts). */
export const SourceRevisionConfigView = camelCaseViewClass<StoredSourceRevisionConfig>('SourceRevisionConfigView', REVISION_CONFIG_NAMES);
export type SourceRevisionConfigView = InstanceType<typeof SourceRevisionConfigView>;

export const SourceRevisionConfigRef = builder.objectRef<SourceRevisionConfigView>('SourceRevisionConfig').implement({
  description: 'Which revision of the source is deployed (REST: `source_revision_config`).',
  fields: (t) => camelCaseKeys(revisionConfigFields(sourceOutputFields(t))),
});
