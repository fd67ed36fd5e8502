import { builder } from '../../graphql/builder.ts';
import { TenantSchema, type Tenant } from './tenant.entity.ts';
import type { GraphQLContext } from '../../graphql/context.ts';

// Only the caller's own tenant is ever loadable, as `tenant` or through `node(id:)`.
function loadCurrentTenant(id: string, ctx: GraphQLContext): Promise<Tenant | null> {
  return id === ctx.principal.tenantId ? ctx.em().findOne(TenantSchema, { id }) : Promise.resolve(null);
}

export const TenantRef = builder.node(builder.objectRef<Tenant>('Tenant'), {
  description: 'A customer workspace; every deployment and integration belongs to exactly one.',
  id: { resolve: (tenant) => tenant.id },
  loadOne: loadCurrentTenant,
  fields: (t) => ({
    uuid: t.field({ type: 'UUID', description: 'Raw id of the tenant (`tenant_id` in REST records, the X-Tenant-Id header).', resolve: (tenant) => tenant.id }),
    name: t.exposeString('name', { description: 'Display name of the tenant.' }),
  }),
});

builder.queryField('tenant', (t) =>
  t.field({
    type: TenantRef,
    description: 'The tenant this request acts for, chosen by the API key and the X-Tenant-Id header.',
    resolve: async (_root, _args, ctx) => (await loadCurrentTenant(ctx.principal.tenantId, ctx))!,
  }));
