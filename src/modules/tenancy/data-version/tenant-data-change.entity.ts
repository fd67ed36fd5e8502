import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

// One row per transaction that changed a tenant's data, inserted by the first change and deleted at its
// commit: its deferred trigger advances the versions of every tenant the transaction changed, once, as the
// transaction's last step (so that writers of a tenant wait on its version only for their commits).
export const TenantDataChangeSchema = defineEntity({
  name: 'TenantDataChange',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
  },
});

export type TenantDataChange = InferEntity<typeof TenantDataChangeSchema>;
