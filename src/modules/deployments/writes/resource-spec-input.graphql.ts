// The resource spec as mutations take it: the ResourceSpec type's fields, as input (its Kubernetes parts keep
// Kubernetes' camelCase keys, which are also their REST keys).
import { builder } from '../../../graphql/builder.ts';
import { RESOURCE_SPEC_INTEGERS, RESOURCE_SPEC_NUMBERS, VOLUME_SOURCES } from '../resource-spec.graphql.ts';

const VolumeMountInput = builder.inputType('VolumeMountInput', {
  description: 'Where a volume is mounted in a container (Kubernetes VolumeMount).',
  fields: (t) => ({
    name: t.string({ description: 'Name of the volume to mount.' }),
    mountPath: t.string({ description: 'Path in the container.' }),
    subPath: t.string({ description: 'Path within the volume to mount instead of its root.' }),
    mountPropagation: t.string({ description: 'How mounts propagate between host and container.' }),
    subPathExpr: t.string({ description: 'Like subPath, with environment variables expanded.' }),
    readOnly: t.boolean({ description: 'Whether the mount is read-only.' }),
  }),
});

const EnvVarInput = builder.inputType('EnvVarInput', {
  description: 'An environment variable of a container.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Variable name (a C identifier).' }),
    value: t.string({ description: 'Literal value.' }),
    valueFrom: t.field({ type: 'JSONObject', description: 'Source of the value (not with a non-empty value).' }),
  }),
});

const ContainerResourcesInput = builder.inputType('ContainerResourcesInput', {
  description: 'Compute resources of a container.',
  fields: (t) => ({
    limits: t.field({ type: 'JSONObject', description: 'Upper bounds, e.g. `{"cpu": "500m", "memory": "256Mi"}`.' }),
    requests: t.field({ type: 'JSONObject', description: 'Guaranteed amounts, same shape as limits.' }),
  }),
});

const ContainerInput = builder.inputType('ContainerInput', {
  description: 'An init container or sidecar (Kubernetes Container).',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Container name (a DNS label).' }),
    image: t.string({ required: true, description: 'Image to run.' }),
    imagePullPolicy: t.string({ description: 'When to pull the image (Always, IfNotPresent, Never).' }),
    command: t.stringList({ description: 'Entrypoint, replacing the image\'s.' }),
    args: t.stringList({ description: 'Arguments to the entrypoint.' }),
    workingDir: t.string({ description: 'Working directory of the process.' }),
    env: t.field({ type: [EnvVarInput], description: 'Environment variables.' }),
    envFrom: t.field({ type: ['JSONObject'], description: 'Sources of whole sets of environment variables.' }),
    resources: t.field({ type: ContainerResourcesInput, description: 'Compute resources.' }),
    volumeMounts: t.field({ type: [VolumeMountInput], description: 'Volumes mounted into this container.' }),
    securityContext: t.field({ type: 'JSONObject', description: 'Security settings (user, capabilities, …).' }),
    restartPolicy: t.string({ description: 'Restart policy (native sidecars use `Always`).' }),
  }),
});

const VolumeInput = builder.inputType('VolumeInput', {
  description: 'A volume of the pod (Kubernetes Volume); set one source object.',
  fields: (t) => ({
    name: t.string({ description: 'Name the mounts refer to.' }),
    ...Object.fromEntries(Object.entries(VOLUME_SOURCES).map(([field, description]) => [field, t.field({ type: 'JSONObject', description })])),
  }),
});

const ImagePullSecretInput = builder.inputType('ImagePullSecretInput', {
  description: 'A registry credential used to pull images.',
  fields: (t) => ({ name: t.string({ required: true, description: 'Name of the Kubernetes secret holding the credential.' }) }),
});

export const ResourceSpecInput = builder.inputType('ResourceSpecInput', {
  description: 'Scaling and compute settings; sent on a change, it replaces the whole stored spec and makes a new revision. '
    + 'CPU amounts are rounded to one decimal (cpu and queueCpu 0.1 to 8, their limits 0.1 to 16).',
  fields: (t) => ({
    ...Object.fromEntries(Object.entries(RESOURCE_SPEC_INTEGERS).map(([field, description]) => [field, t.int({ description })])),
    ...Object.fromEntries(Object.entries(RESOURCE_SPEC_NUMBERS).map(([field, description]) => [field, t.float({ description })])),
    labels: t.field({ type: 'JSONObject', description: 'Kubernetes labels (string values).' }),
    annotations: t.field({ type: 'JSONObject', description: 'Kubernetes annotations (string values).' }),
    serviceAccountName: t.string({ description: 'Kubernetes service account the pods run as.' }),
    imagePullSecrets: t.field({ type: [ImagePullSecretInput], description: 'Registry credentials for pulling images.' }),
    volumes: t.field({ type: [VolumeInput], description: 'Volumes of the pod.' }),
    volumeMounts: t.field({ type: [VolumeMountInput], description: 'Volumes mounted into the main container.' }),
    initContainers: t.field({ type: [ContainerInput], description: 'Containers that run to completion before the main one starts.' }),
    sidecars: t.field({ type: [ContainerInput], description: 'Containers that run beside the main one.' }),
  }),
});
