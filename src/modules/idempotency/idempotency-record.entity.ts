import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../common/base.entity.ts';

// A request made under an `Idempotency-Key` (docs/decisions.md#idempotency-keys): claimed before the write
// runs, marked committed inside the write's own transaction, and holding the answer once it is sent, so that a
// retry under the same key gets that answer instead of a second write. Kept 24 hours.
export const IdempotencyRecordSchema = defineEntity({
  name: 'IdempotencyRecord',
  extends: TenantOwnedSchema,
  uniques: [{ properties: ['tenant', 'key'] }],
  indexes: [{ properties: ['createdAt'] }],
  properties: {
    key: p.text(),
    /** SHA-256 of the method, the path and the body: the same key with another request is refused. */
    fingerprint: p.text(),
    /** When the request holding the key started; a claim older than the lease is a crashed request's. */
    claimedAt: p.datetime(),
    /** Set in the write's transaction: once true, the write happened, whatever became of its answer. */
    committed: p.boolean().default(false),
    /** The answer sent (status, headers, body), once there is one. */
    answer: p.json<StoredAnswer>().nullable(),
    createdAt: p.datetime(),
  },
});

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export type IdempotencyRecord = InferEntity<typeof IdempotencyRecordSchema>;
