// GraphQL types of the resource spec and its Kubernetes-shaped parts. Every field is nullable: the legacy
// record distinguishes a missing value (null) from an empty list, and so do we.
import { builder } from '../../graphql/builder.ts';
import type {
  Container, ContainerResources, EnvVar, ImagePullSecret, Volume, VolumeMount,
} from './container.embeddable.ts';
import { camelCase, snakeCase } from '../common/legacy-json.ts';
import { keyOf } from '../../graphql/selected-columns.ts';
import { camelCaseViewClass, type CamelCaseView } from '../../graphql/field-views.ts';
import type { StoredResourceSpec } from './deployment-read-model.ts';
import { RESOURCE_SPEC_SCALARS, type ResourceSpecScalar } from './resource-spec-fields.ts';

type Described = Record<string, string>;

export const VolumeMountRef = builder.objectRef<VolumeMount>('VolumeMount').implement({
  description: 'Where a volume is mounted in a container (Kubernetes VolumeMount).',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true, description: 'Name of the volume to mount.' }),
    mountPath: t.exposeString('mountPath', { nullable: true, description: 'Path in the container.' }),
    subPath: t.exposeString('subPath', { nullable: true, description: 'Path within the volume to mount instead of its root.' }),
    mountPropagation: t.exposeString('mountPropagation', { nullable: true, description: 'How mounts propagate between host and container.' }),
    subPathExpr: t.exposeString('subPathExpr', { nullable: true, description: 'Like subPath, with environment variables expanded.' }),
    readOnly: t.exposeBoolean('readOnly', { nullable: true, description: 'Whether the mount is read-only.' }),
  }),
});

export const VOLUME_SOURCES: Described = {
  configMap: 'A ConfigMap as the volume source.',
  secret: 'A Kubernetes Secret as the volume source.',
  emptyDir: 'A scratch directory that lives as long as the pod.',
  persistentVolumeClaim: 'A persistent volume claim as the volume source.',
  nfs: 'An NFS export as the volume source.',
  projected: 'Several sources projected into one directory.',
  downwardAPI: 'Pod metadata exposed as files.',
  csi: 'A CSI driver as the volume source.',
};

export const VolumeRef = builder.objectRef<Volume>('Volume').implement({
  description: 'A volume of the pod (Kubernetes Volume); exactly one source object is normally set.',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true, description: 'Name the mounts refer to.' }),
    ...Object.fromEntries(Object.entries(VOLUME_SOURCES).map(([field, description]) =>
      [field, t.expose(field as 'configMap', { type: 'JSONObject', nullable: true, description })])),
  }),
});

export const ImagePullSecretRef = builder.objectRef<ImagePullSecret>('ImagePullSecret').implement({
  description: 'A registry credential used to pull images.',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true, description: 'Name of the Kubernetes secret holding the credential.' }),
  }),
});

export const EnvVarRef = builder.objectRef<EnvVar>('EnvVar').implement({
  description: 'An environment variable of a container.',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true, description: 'Variable name.' }),
    value: t.exposeString('value', { nullable: true, description: 'Literal value.' }),
    valueFrom: t.expose('valueFrom', { type: 'JSONObject', nullable: true, description: 'Source of the value (secret key, config map key, field reference).' }),
  }),
});

export const ContainerResourcesRef = builder.objectRef<ContainerResources>('ContainerResources').implement({
  description: 'Compute resources of a container.',
  fields: (t) => ({
    limits: t.expose('limits', { type: 'JSONObject', nullable: true, description: 'Upper bounds, e.g. `{"cpu": "500m", "memory": "256Mi"}`.' }),
    requests: t.expose('requests', { type: 'JSONObject', nullable: true, description: 'Guaranteed amounts, same shape as limits.' }),
  }),
});

export const ContainerRef = builder.objectRef<Container>('Container').implement({
  description: 'An init container or sidecar (Kubernetes Container).',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true, description: 'Container name.' }),
    image: t.exposeString('image', { nullable: true, description: 'Image to run.' }),
    imagePullPolicy: t.exposeString('imagePullPolicy', { nullable: true, description: 'When to pull the image (Always, IfNotPresent, Never).' }),
    workingDir: t.exposeString('workingDir', { nullable: true, description: 'Working directory of the process.' }),
    restartPolicy: t.exposeString('restartPolicy', { nullable: true, description: 'Restart policy (native sidecars use `Always`).' }),
    command: t.exposeStringList('command', { nullable: true, description: 'Entrypoint, replacing the image\'s.' }),
    args: t.exposeStringList('args', { nullable: true, description: 'Arguments to the entrypoint.' }),
    env: t.expose('env', { type: [EnvVarRef], nullable: true, description: 'Environment variables.' }),
    envFrom: t.expose('envFrom', { type: ['JSONObject'], nullable: true, description: 'Sources of whole sets of environment variables.' }),
    resources: t.expose('resources', { type: ContainerResourcesRef, nullable: true, description: 'Compute resources.' }),
    volumeMounts: t.expose('volumeMounts', { type: [VolumeMountRef], nullable: true, description: 'Volumes mounted into this container.' }),
    securityContext: t.expose('securityContext', { type: 'JSONObject', nullable: true, description: 'Security settings (user, capabilities, …).' }),
  }),
});

// The scalar fields (resource-spec-fields.ts) by GraphQL name, with their descriptions: Int for the stored
// integers, Float for the numbers, which may be fractional. Integers first, as the types have always listed them.
const scalarsStoredAs = (stored: ResourceSpecScalar['stored']): Described => Object.fromEntries(
  Object.entries<ResourceSpecScalar>(RESOURCE_SPEC_SCALARS).filter(([, field]) => field.stored === stored)
    .map(([name, field]) => [camelCase(name), field.description]));
export const RESOURCE_SPEC_INTEGERS = scalarsStoredAs('int');
export const RESOURCE_SPEC_NUMBERS = scalarsStoredAs('number');

// The parent is a view of the stored jsonb object (legacy snake_case keys at the top, Kubernetes' own keys
// below) under the fields' names, so that graphql-jit reads every field inline (see graphql/field-views.ts).
// Each field reads one top-level key of the deployment's resource_spec column, and says so (`keyOf`): a
// listing reads only the keys selected.
const RESOURCE_SPEC_KEYS = [
  ...[...Object.keys(RESOURCE_SPEC_INTEGERS), ...Object.keys(RESOURCE_SPEC_NUMBERS)].map(snakeCase),
  'labels', 'annotations', 'service_account_name', 'image_pull_secrets', 'volumes', 'volume_mounts', 'init_containers', 'sidecars',
] as (keyof StoredResourceSpec & string)[];
// Stored Kubernetes objects keep Kubernetes' keys, which are the embeddables' own: the same shapes.
interface KubernetesParts {
  readonly imagePullSecrets?: ImagePullSecret[] | null;
  readonly volumes?: Volume[] | null;
  readonly volumeMounts?: VolumeMount[] | null;
  readonly initContainers?: Container[] | null;
  readonly sidecars?: Container[] | null;
}
export type ResourceSpecView = Omit<CamelCaseView<StoredResourceSpec>, keyof KubernetesParts> & KubernetesParts;
export const ResourceSpecView = camelCaseViewClass<StoredResourceSpec>('ResourceSpecView', RESOURCE_SPEC_KEYS) as
  new (stored: StoredResourceSpec) => ResourceSpecView;

type NumberField = { [K in keyof ResourceSpecView]-?: ResourceSpecView[K] extends number | null | undefined ? K : never }[keyof ResourceSpecView];
const specKey = (field: string) => ({ extensions: keyOf('resource_spec', snakeCase(field)) });
export const ResourceSpecRef = builder.objectRef<ResourceSpecView>('ResourceSpec').implement({
  description: 'Scaling and compute settings of a deployment (REST: `source_config.resource_spec`).',
  fields: (t) => ({
    ...Object.fromEntries(Object.entries(RESOURCE_SPEC_INTEGERS).map(([field, description]) =>
      [field, t.exposeInt(field as NumberField, { nullable: true, description, ...specKey(field) })])),
    ...Object.fromEntries(Object.entries(RESOURCE_SPEC_NUMBERS).map(([field, description]) =>
      [field, t.exposeFloat(field as NumberField, { nullable: true, description, ...specKey(field) })])),
    labels: t.expose('labels', { type: 'JSONObject', nullable: true, description: 'Kubernetes labels.', ...specKey('labels') }),
    annotations: t.expose('annotations', { type: 'JSONObject', nullable: true, description: 'Kubernetes annotations.', ...specKey('annotations') }),
    serviceAccountName: t.exposeString('serviceAccountName', { nullable: true, description: 'Kubernetes service account the pods run as.', ...specKey('serviceAccountName') }),
    imagePullSecrets: t.expose('imagePullSecrets', { ...specKey('imagePullSecrets'), type: [ImagePullSecretRef], nullable: true, description: 'Registry credentials for pulling images.' }),
    volumes: t.expose('volumes', { ...specKey('volumes'), type: [VolumeRef], nullable: true, description: 'Volumes of the pod.' }),
    volumeMounts: t.expose('volumeMounts', { ...specKey('volumeMounts'), type: [VolumeMountRef], nullable: true, description: 'Volumes mounted into the main container.' }),
    initContainers: t.expose('initContainers', { ...specKey('initContainers'), type: [ContainerRef], nullable: true, description: 'Containers that run to completion before the main one starts.' }),
    sidecars: t.expose('sidecars', { ...specKey('sidecars'), type: [ContainerRef], nullable: true, description: 'Containers that run beside the main one.' }),
  }),
});
