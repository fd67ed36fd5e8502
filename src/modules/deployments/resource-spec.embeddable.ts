// Scaling and compute settings of a deployment (docs/legacy-api.md#resource-specification). Stored as jsonb
// with the legacy snake_case keys; the scalar fields and their kinds are declared in resource-spec-fields.ts.
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { camelCaseKeys } from '../common/legacy-json.ts';
import { ContainerSchema, ImagePullSecretSchema, VolumeMountSchema, VolumeSchema } from './container.embeddable.ts';
import { resourceSpecScalars } from './resource-spec-fields.ts';

const STORED_PROPERTIES = {
  int: () => p.integer().nullable(),
  // jsonb values are JSON numbers already; `$type` only tells TypeScript so (DoubleType allows strings).
  number: () => p.double().$type<number>().nullable(),
};

export const ResourceSpecSchema = defineEntity({
  name: 'ResourceSpec',
  embeddable: true,
  properties: {
    ...camelCaseKeys(resourceSpecScalars((field) => STORED_PROPERTIES[field.stored]())),

    labels: p.json<Record<string, unknown>>().nullable(),
    annotations: p.json<Record<string, unknown>>().nullable(),
    serviceAccountName: p.text().nullable(),

    imagePullSecrets: () => p.embedded(ImagePullSecretSchema).array().nullable(),
    volumes: () => p.embedded(VolumeSchema).array().nullable(),
    volumeMounts: () => p.embedded(VolumeMountSchema).array().nullable(),
    initContainers: () => p.embedded(ContainerSchema).array().nullable(),
    sidecars: () => p.embedded(ContainerSchema).array().nullable(),
  },
});

export type ResourceSpec = InferEntity<typeof ResourceSpecSchema>;
