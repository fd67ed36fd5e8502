// Scaling and compute settings of a deployment (docs/legacy-api.md#resource-specification). Stored as jsonb
// with the legacy snake_case keys. Fields the legacy interface calls "numbers" may be fractional; the
// orchestrator, executor and db groups are only "numeric", so they are kept as numbers too rather than
// truncated to integers.
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { ContainerSchema, ImagePullSecretSchema, VolumeMountSchema, VolumeSchema } from './container.embeddable.ts';

const int = () => p.integer().nullable();
// jsonb values are JSON numbers already; `$type` only tells TypeScript so (DoubleType allows strings).
const num = () => p.double().$type<number>().nullable();

export const ResourceSpecSchema = defineEntity({
  name: 'ResourceSpec',
  embeddable: true,
  properties: {
    minScale: int(),
    maxScale: int(),
    cpu: num(),
    cpuLimit: num(),
    memoryMb: int(),
    memoryLimitMb: int(),

    queueMinScale: int(),
    queueMaxScale: int(),
    queueCpu: num(),
    queueCpuLimit: num(),
    queueMemoryMb: int(),
    queueMemoryLimitMb: int(),

    orchestratorCpu: num(),
    orchestratorCpuLimit: num(),
    orchestratorMemoryMb: num(),
    orchestratorMemoryLimitMb: num(),
    orchestratorMinScale: num(),
    orchestratorMaxScale: num(),

    executorCpu: num(),
    executorCpuLimit: num(),
    executorMemoryMb: num(),
    executorMemoryLimitMb: num(),

    redisCpu: num(),
    redisCpuLimit: num(),
    redisMemoryMb: int(),
    redisMemoryLimitMb: int(),

    dbCpu: num(),
    dbCpuLimit: num(),
    dbMemoryMb: num(),
    dbMemoryLimitMb: num(),
    dbStorageGi: num(),
    dbMaxConnections: num(),

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
