import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantSchema } from '../tenant.entity.ts';

// A tenant's data version (docs/decisions.md#conditional-requests): advanced by the database, at the commit of
// every transaction that changed a row the tenant's answers show, whoever wrote it (a request, an import, a
// data plane's report, the lease sweep, a key rotation, psql). Answers' entity tags are made of it, so that a
// tag taken before a change never matches after its commit. Values come from one sequence: a tenant deleted
// and made again never repeats a version it had.
export const TenantDataVersionSchema = defineEntity({
  name: 'TenantDataVersion',
  properties: {
    tenant: () => p.oneToOne(TenantSchema).primary().deleteRule('cascade').ref(),
    version: p.bigint('number'),
    /**
     * The same for the tenant's revision log lines alone, which only GraphQL's `Revision.logs` and `logPage` show:
     * a data plane appends them many times a second during a build, and REST answers, which never show them,
     * keep their tags meanwhile.
     */
    logVersion: p.bigint('number').default(0),
  },
});

export type TenantDataVersion = InferEntity<typeof TenantDataVersionSchema>;
