import { EntityRepository } from '@mikro-orm/postgresql';
import type { ApiKey } from './api-key.entity.ts';
import { hashApiKey, looksLikeApiKey } from './api-key-secret.ts';
import { isUuid } from '../common/uuid.ts';

/** Keys and their tenants are read before (or across) any tenant scope: the one sanctioned opt-out. */
const UNSCOPED = { filters: false } as const;

export class ApiKeyRepository extends EntityRepository<ApiKey> {
  /** The key with its granted tenants, or null when the key is unknown (revoked keys are returned: callers decide). */
  async findByPresentedKey(presented: string): Promise<ApiKey | null> {
    if (!looksLikeApiKey(presented)) return null;
    return this.findOne({ keyHash: hashApiKey(presented) }, { ...UNSCOPED, populate: ['tenants'] });
  }

  /** Accepts the key's id or its displayed prefix (at least the `dmk_` part and 4 more characters). */
  listAll(): Promise<ApiKey[]> {
    return this.findAll({ ...UNSCOPED, populate: ['tenants'], orderBy: { createdAt: 'asc' } });
  }

  async findByIdOrPrefix(idOrPrefix: string): Promise<ApiKey[]> {
    if (isUuid(idOrPrefix)) return this.find({ id: idOrPrefix.toLowerCase() }, UNSCOPED);
    if (idOrPrefix.length < 8) return [];
    return this.find({ prefix: { $like: `${idOrPrefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%` } }, UNSCOPED);
  }
}
