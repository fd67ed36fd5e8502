import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, uuidPrimaryKey } from '../common/columns.ts';
import { TenantSchema } from './tenant.entity.ts';
import { ApiKeyRepository } from './api-key.repository.ts';

export const CREDENTIALS_FILTER = 'credentials';

export class CredentialsAccessError extends Error {
  override name = 'CredentialsAccessError';
}

// Only the SHA-256 of a key is stored: keys are 256-bit random, so a slow password hash adds nothing,
// and a hash lookup keeps authentication to one indexed query.
// Keys are read only through ApiKeyRepository (authentication, the apikey CLI), which opts out of this
// filter; any other query of them, from a request's resolvers say, throws.
export const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  filters: {
    [CREDENTIALS_FILTER]: {
      name: CREDENTIALS_FILTER,
      default: true,
      cond: () => {
        throw new CredentialsAccessError('API keys are read through ApiKeyRepository only');
      },
    },
  },
  repository: () => ApiKeyRepository,
  properties: {
    id: uuidPrimaryKey(),
    name: p.text(),
    /** The first characters of the key, shown in listings and accepted by `apikey revoke`. */
    prefix: p.text().unique(),
    keyHash: p.text().unique().hidden(),
    mayReadSecrets: p.boolean().default(false),
    /** Whether the key may create, change and delete deployments; keys issued before writes existed may not. */
    mayWrite: p.boolean().default(false),
    /** Whether the key is a data plane's: it may claim revisions and report their progress (`--reconcile`). */
    mayReconcile: p.boolean().default(false),
    /**
     * The listener a data-plane key is bound to (`--reconcile --listener <id>`): it claims and reports on the
     * revisions of that listener's deployments only (docs/decisions.md#listeners). No foreign key: a key bound to
     * a listener since deleted claims nothing, rather than becoming a key of no listener.
     */
    listenerId: p.uuid().nullable(),
    tenants: () => p.manyToMany(TenantSchema).pivotTable('api_key_tenant'),
    createdAt: createdAt(),
    revokedAt: p.datetime().nullable(),
  },
});

export type ApiKey = InferEntity<typeof ApiKeySchema>;
