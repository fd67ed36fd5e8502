import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';

// Not tenant-scoped itself: a request reaches its tenant by the id its API key grants.
export const TenantSchema = defineEntity({
  name: 'Tenant',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    name: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export type Tenant = InferEntity<typeof TenantSchema>;
