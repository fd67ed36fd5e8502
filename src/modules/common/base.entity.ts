import { defineEntity, p } from '@mikro-orm/postgresql';
import { TenantSchema } from '../tenancy/tenant.entity.ts';
import { uuidPrimaryKey } from './columns.ts';
import { tenantFilter } from '../../db/tenant-filter.ts';

/** Base of every row that belongs to one tenant; its `tenant` filter fails closed (see db/tenant-filter.ts). */
export const TenantOwnedSchema = defineEntity({
  name: 'TenantOwned',
  abstract: true,
  filters: tenantFilter('tenant'),
  properties: {
    id: uuidPrimaryKey(),
    tenant: () => p.manyToOne(TenantSchema).ref().index(),
  },
});
