import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, uuidPrimaryKey } from '../common/base.entity.ts';
import { TenantSchema } from './tenant.entity.ts';
import { ApiKeyRepository } from './api-key.repository.ts';

// Only the SHA-256 of a key is stored: keys are 256-bit random, so a slow password hash adds nothing,
// and a hash lookup keeps authentication to one indexed query.
export const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  repository: () => ApiKeyRepository,
  properties: {
    id: uuidPrimaryKey(),
    name: p.text(),
    /** The first characters of the key, shown in listings and accepted by `apikey revoke`. */
    prefix: p.text().unique(),
    keyHash: p.text().unique().hidden(),
    mayReadSecrets: p.boolean().default(false),
    tenants: () => p.manyToMany(TenantSchema).pivotTable('api_key_tenant'),
    createdAt: createdAt(),
    revokedAt: p.datetime().nullable(),
  },
});

export type ApiKey = InferEntity<typeof ApiKeySchema>;
