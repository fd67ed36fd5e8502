// Who is calling and for which tenant (contract.md "Authentication and tenants"), shared by both doors.
// The messages are the legacy REST bodies, word for word; GraphQL carries the same text.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKeySchema } from './api-key.entity.ts';

export interface Principal {
  apiKeyId: string;
  tenantId: string;
  mayReadSecrets: boolean;
}

export type AuthFailure = 'missing-key' | 'invalid-key' | 'tenant-not-granted' | 'tenant-required';

export class AuthError extends Error {
  override name = 'AuthError';
  readonly reason: AuthFailure;
  readonly status: 401 | 403;
  constructor(reason: AuthFailure, message: string) {
    super(message);
    this.reason = reason;
    this.status = reason === 'missing-key' || reason === 'invalid-key' ? 401 : 403;
  }
}

/** The presented key: `X-Api-Key`, else `Authorization: Bearer <key>` (header names are case-insensitive). */
export function presentedApiKey(headers: Headers): string | undefined {
  const direct = headers.get('x-api-key')?.trim();
  if (direct) return direct;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.get('authorization') ?? '');
  return bearer?.[1];
}

export async function authenticate(headers: Headers, em: EntityManager): Promise<Principal> {
  const presented = presentedApiKey(headers);
  if (!presented) throw new AuthError('missing-key', 'Not authenticated');
  const apiKey = await em.fork().getRepository(ApiKeySchema).findByPresentedKey(presented);
  if (!apiKey || apiKey.revokedAt) throw new AuthError('invalid-key', 'Invalid API key');

  const granted = apiKey.tenants.getItems().map((t) => t.id);
  const requested = headers.get('x-tenant-id')?.trim();
  let tenantId: string;
  if (requested) {
    const match = granted.find((id) => id === requested.toLowerCase());
    if (!match) throw new AuthError('tenant-not-granted', `Tenant ${requested} is not accessible with this API key`);
    tenantId = match;
  } else if (granted.length === 1) {
    tenantId = granted[0]!;
  } else {
    throw new AuthError('tenant-required', 'requires workspace specification');
  }
  return { apiKeyId: apiKey.id, tenantId, mayReadSecrets: apiKey.mayReadSecrets };
}
