// Issuing and revoking API keys (used by `npm run apikey` and the demo data).
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKeySchema, type ApiKey } from './api-key.entity.ts';
import { generateApiKey } from './api-key-secret.ts';
import { TenantSchema } from './tenant.entity.ts';
import { ACROSS_TENANTS } from '../common/tenant-scope.ts';
import { isUuid } from '../common/uuid.ts';
import { announceRevocation } from './api-key-revocations.ts';
import { ListenerSchema } from '../listeners/listener.entity.ts';

export class ApiKeyError extends Error {
  override name = 'ApiKeyError';
}

export interface IssuedApiKey {
  /** The only moment the plaintext key exists; it is not stored. */
  key: string;
  apiKey: ApiKey;
}

export async function issueApiKey(
  em: EntityManager, options: { tenantIds: string[]; name: string; mayReadSecrets: boolean; mayWrite?: boolean; mayReconcile?: boolean; listenerId?: string | null },
): Promise<IssuedApiKey> {
  if (options.tenantIds.length === 0) throw new ApiKeyError('a key needs at least one tenant (--tenant <uuid>)');
  const malformed = options.tenantIds.find((id) => !isUuid(id));
  if (malformed) throw new ApiKeyError(`tenant "${malformed}" is not a UUID`);
  const tenantIds = [...new Set(options.tenantIds.map((id) => id.toLowerCase()))];
  const tenants = await em.find(TenantSchema, { id: { $in: tenantIds } }, ACROSS_TENANTS);
  const missing = tenantIds.filter((id) => !tenants.some((t) => t.id === id));
  if (missing.length) throw new ApiKeyError(`unknown tenant ${missing.join(', ')}`);
  const listenerId = options.listenerId == null ? null : await boundListener(em, options.listenerId, tenantIds, options.mayReconcile ?? false);
  const { key, prefix, keyHash } = generateApiKey();
  const apiKey = em.create(ApiKeySchema, {
    name: options.name, prefix, keyHash, mayReadSecrets: options.mayReadSecrets, mayWrite: options.mayWrite ?? false, mayReconcile: options.mayReconcile ?? false,
    listenerId, tenants,
  });
  await em.flush();
  return { key, apiKey };
}

/** The listener a data-plane key is bound to: one of a tenant the key is granted (docs/decisions.md#listeners). */
async function boundListener(em: EntityManager, listenerId: string, tenantIds: string[], mayReconcile: boolean): Promise<string> {
  if (!mayReconcile) throw new ApiKeyError('--listener binds a data plane\'s key: give --reconcile too');
  if (!isUuid(listenerId)) throw new ApiKeyError(`listener "${listenerId}" is not a UUID`);
  const id = listenerId.toLowerCase();
  const listener = await em.findOne(ListenerSchema, { id }, ACROSS_TENANTS);
  if (!listener || !tenantIds.includes(listener.tenant.id)) throw new ApiKeyError(`no listener ${id} in the key's tenants`);
  return id;
}

/** Revokes the one key matching an id or prefix; ambiguous or unknown input changes nothing. */
export async function revokeApiKey(em: EntityManager, idOrPrefix: string): Promise<ApiKey> {
  const matches = await em.getRepository(ApiKeySchema).findByIdOrPrefix(idOrPrefix);
  if (matches.length === 0) throw new ApiKeyError(`no API key matches "${idOrPrefix}"`);
  if (matches.length > 1) throw new ApiKeyError(`"${idOrPrefix}" matches ${matches.length} keys; give more of the prefix or the id`);
  const apiKey = matches[0]!;
  apiKey.revokedAt ??= new Date();
  await em.flush();
  await announceRevocation(em, apiKey.id);
  return apiKey;
}
