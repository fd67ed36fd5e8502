// Shared columns. Ids are UUIDs because they are public (the REST layer and imports use them as-is).
import { defineEntity, p } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { TenantSchema } from '../tenancy/tenant.entity.ts';
import { tenantFilter } from './tenant-scope.ts';

export const uuidPrimaryKey = () => p.uuid().primary().onCreate(() => randomUUID());
export const createdAt = () => p.datetime().onCreate(() => new Date());
export const updatedAt = () => p.datetime().onCreate(() => new Date()).onUpdate(() => new Date());

/** Base of every row that belongs to one tenant; its `tenant` filter fails closed (see tenant-scope.ts). */
export const TenantOwnedSchema = defineEntity({
  name: 'TenantOwned',
  abstract: true,
  filters: tenantFilter,
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(TenantSchema).ref().index(),
  },
});
