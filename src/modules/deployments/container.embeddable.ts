// Kubernetes-shaped pieces of a resource spec. Their JSON keys keep Kubernetes' own camelCase
// (`mountPath`, `imagePullPolicy`), which is what legacy clients send and read, hence the explicit
// field names. Free-form objects whose contents the legacy interface leaves open stay plain JSON
// (docs/legacy-api.md#free-form-objects).
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

type JsonObject = Record<string, unknown>;

export const VolumeMountSchema = defineEntity({
  name: 'VolumeMount',
  embeddable: true,
  properties: {
    name: p.text().nullable(),
    mountPath: p.text().fieldName('mountPath').nullable(),
    subPath: p.text().fieldName('subPath').nullable(),
    mountPropagation: p.text().fieldName('mountPropagation').nullable(),
    subPathExpr: p.text().fieldName('subPathExpr').nullable(),
    readOnly: p.boolean().fieldName('readOnly').nullable(),
  },
});
export type VolumeMount = InferEntity<typeof VolumeMountSchema>;

export const EnvVarSchema = defineEntity({
  name: 'EnvVar',
  embeddable: true,
  properties: {
    name: p.text().nullable(),
    value: p.text().nullable(),
    valueFrom: p.json<JsonObject>().fieldName('valueFrom').nullable(),
  },
});
export type EnvVar = InferEntity<typeof EnvVarSchema>;

export const ContainerResourcesSchema = defineEntity({
  name: 'ContainerResources',
  embeddable: true,
  properties: {
    limits: p.json<JsonObject>().nullable(),
    requests: p.json<JsonObject>().nullable(),
  },
});
export type ContainerResources = InferEntity<typeof ContainerResourcesSchema>;

/** Shape shared by `init_containers` and `sidecars`. */
export const ContainerSchema = defineEntity({
  name: 'Container',
  embeddable: true,
  properties: {
    name: p.text().nullable(),
    image: p.text().nullable(),
    imagePullPolicy: p.text().fieldName('imagePullPolicy').nullable(),
    workingDir: p.text().fieldName('workingDir').nullable(),
    restartPolicy: p.text().fieldName('restartPolicy').nullable(),
    command: p.json<string[]>().nullable(),
    args: p.json<string[]>().nullable(),
    env: () => p.embedded(EnvVarSchema).array().nullable(),
    envFrom: p.json<JsonObject[]>().fieldName('envFrom').nullable(),
    resources: () => p.embedded(ContainerResourcesSchema).object().nullable(),
    volumeMounts: () => p.embedded(VolumeMountSchema).array().fieldName('volumeMounts').nullable(),
    securityContext: p.json<JsonObject>().fieldName('securityContext').nullable(),
  },
});
export type Container = InferEntity<typeof ContainerSchema>;

export const VolumeSchema = defineEntity({
  name: 'Volume',
  embeddable: true,
  properties: {
    name: p.text().nullable(),
    configMap: p.json<JsonObject>().fieldName('configMap').nullable(),
    secret: p.json<JsonObject>().nullable(),
    emptyDir: p.json<JsonObject>().fieldName('emptyDir').nullable(),
    persistentVolumeClaim: p.json<JsonObject>().fieldName('persistentVolumeClaim').nullable(),
    nfs: p.json<JsonObject>().nullable(),
    projected: p.json<JsonObject>().nullable(),
    downwardAPI: p.json<JsonObject>().fieldName('downwardAPI').nullable(),
    csi: p.json<JsonObject>().nullable(),
  },
});
export type Volume = InferEntity<typeof VolumeSchema>;

export const ImagePullSecretSchema = defineEntity({
  name: 'ImagePullSecret',
  embeddable: true,
  properties: {
    name: p.text().nullable(),
  },
});
export type ImagePullSecret = InferEntity<typeof ImagePullSecretSchema>;
