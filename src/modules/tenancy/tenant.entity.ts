import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, updatedAt, uuidPrimaryKey } from '../common/columns.ts';
import { tenantFilter } from '../../db/tenant-filter.ts';

// A request sees its own tenant only (the `tenant` filter on `id`); authentication and the CLIs, which
// work before or across tenants, opt out explicitly.
export const TenantSchema = defineEntity({
  name: 'Tenant',
  filters: tenantFilter('id'),
  properties: {
    id: uuidPrimaryKey(),
    name: p.text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});

export type Tenant = InferEntity<typeof TenantSchema>;
