import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../../common/base.entity.ts';
import { RevisionSchema } from '../revision.entity.ts';

// The claim of the data plane working on a revision (docs/decisions.md#revision-lifecycle): the id its reports
// must carry, the key that claimed it, and when the claim lapses unless a report renews it; it goes with its
// revision. It is a row of its own so that renewing it (every report does) changes no revision or deployment:
// readers, ETags and live updates see status changes, not heartbeats.
export const RevisionLeaseSchema = defineEntity({
  name: 'RevisionLease',
  extends: TenantOwnedSchema,
  indexes: [{ name: 'revision_lease_expiry_idx', expression: 'create index "revision_lease_expiry_idx" on "revision_lease" ("expires_at") where "expires_at" is not null' }],
  properties: {
    revision: () => p.oneToOne(RevisionSchema).ref().unique().deleteRule('cascade'),
    leaseId: p.uuid(),
    claimedBy: p.uuid(),
    /** Null once the revision reached a final status: nothing is left to lose. */
    expiresAt: p.datetime().nullable(),
    /** How many times data planes have claimed the revision (a lost lease queues it again, up to a limit). */
    claims: p.integer().default(1),
  },
});

export type RevisionLease = InferEntity<typeof RevisionLeaseSchema>;
