import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../common/base.entity.ts';
import { ApiKeySchema } from '../tenancy/api-key.entity.ts';

// The answer to a request made under an `Idempotency-Key` (docs/decisions.md#idempotency-keys), stored in the
// write's own transaction, so that a retry under the same key gets that answer instead of a second write, even
// when the first request's process died before replying. Kept 24 hours. A key is the API key's
// that sent it, in one tenant: a replay shows no other API key what the first answer showed its own.
export const IdempotencyRecordSchema = defineEntity({
  name: 'IdempotencyRecord',
  extends: TenantOwnedSchema,
  uniques: [{ properties: ['tenant', 'apiKey', 'key'] }],
  indexes: [{ properties: ['createdAt'] }],
  properties: {
    apiKey: () => p.manyToOne(ApiKeySchema).ref().deleteRule('cascade'),
    key: p.text(),
    /** SHA-256 of the method, the path and the body: the same key with another request is refused. */
    fingerprint: p.text(),
    /**
     * The answer sent (status, headers, body), sealed as secret values are (it may hold them): AES-256-GCM
     * under the secrets key, bound to the record's tenant, API key and key.
     */
    answerSealed: p.blob().hidden(),
    /** Fingerprint of the secrets key that sealed the answer (rotation re-seals the others). */
    answerKeyFingerprint: p.text(),
    createdAt: p.datetime(),
  },
});

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export type IdempotencyRecord = InferEntity<typeof IdempotencyRecordSchema>;
