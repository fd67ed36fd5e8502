import { EntityRepository } from '@mikro-orm/postgresql';
import type { ApiKey } from './api-key.entity.ts';
import { hashApiKey, looksLikeApiKey } from './api-key-secret.ts';
import { isUuid } from '../common/uuid.ts';
import { ACROSS_TENANTS } from '../common/tenant-scope.ts';
import { escapeLike } from '../common/text-queries.ts';

export class ApiKeyRepository extends EntityRepository<ApiKey> {
  /** The key with its granted tenants, or null when the key is unknown (revoked keys are returned: callers decide). */
  async findByPresentedKey(presented: string): Promise<ApiKey | null> {
    return looksLikeApiKey(presented) ? this.findByKeyHash(hashApiKey(presented)) : null;
  }

  /** The key with that SHA-256 and its granted tenants, joined in one statement. */
  findByKeyHash(keyHash: string): Promise<ApiKey | null> {
    return this.findOne({ keyHash }, { ...ACROSS_TENANTS, populate: ['tenants'], strategy: 'joined' });
  }

  /** Every key with its tenants, oldest first (the `apikey list` CLI). */
  listAll(): Promise<ApiKey[]> {
    return this.findAll({ ...ACROSS_TENANTS, populate: ['tenants'], orderBy: { createdAt: 'asc' } });
  }

  /** Those of the given key ids that no longer authenticate (revoked, or gone). */
  async revokedAmong(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const valid = await this.find({ id: { $in: [...ids] }, revokedAt: null }, { ...ACROSS_TENANTS, fields: ['id'] });
    const stillValid = new Set(valid.map((key) => key.id));
    return ids.filter((id) => !stillValid.has(id));
  }

  /** Accepts the key's id or its displayed prefix (at least the `dmk_` part and 4 more characters). */
  async findByIdOrPrefix(idOrPrefix: string): Promise<ApiKey[]> {
    if (isUuid(idOrPrefix)) return this.find({ id: idOrPrefix.toLowerCase() }, ACROSS_TENANTS);
    if (idOrPrefix.length < 8) return [];
    return this.find({ prefix: { $like: `${escapeLike(idOrPrefix)}%` } }, ACROSS_TENANTS);
  }
}
