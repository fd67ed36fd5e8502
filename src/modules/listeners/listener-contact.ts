// A listener's last contact and version, as its data plane reports them (docs/decisions.md#listeners): every
// claim and every heartbeat of a key bound to the listener. Written at most every CONTACT_RESOLUTION_SECONDS
// while the version stays the same: a busy data plane claims many times a second, and each write moves the
// tenant's data version (the ETags of its answers).
import type { EntityManager } from '@mikro-orm/postgresql';
import { timestampFromText } from '../common/lean-rows.ts';

export const CONTACT_RESOLUTION_SECONDS = 5;

export interface ListenerContact {
  listenerId: string;
  version: string | null;
  lastContactAt: Date;
}

/**
 * Notes that the bound listener's data plane called now, with its version if it sent one (null keeps the
 * stored one). Undefined when the listener is not one of the key's tenants' (deleted since the key was issued),
 * or, without `readBack` (a claim needs no answer), when it was written moments ago.
 */
export async function recordContact(
  em: EntityManager, scope: { tenantIds: readonly string[]; listenerId: string }, version: string | null, { readBack = true } = {},
): Promise<ListenerContact | undefined> {
  const tenants = `{${scope.tenantIds.join(',')}}`;
  const [changed] = await em.execute<{ id: string; version: string | null; last_contact_at: string }[]>(
    `update listener set last_contact_at = now(), version = coalesce(?, version),
       updated_at = case when ?::text is not null and version is distinct from ? then now() else updated_at end
     where id = ? and tenant_id = any(?::uuid[])
       and (last_contact_at is null or last_contact_at < now() - make_interval(secs => ?) or (?::text is not null and version is distinct from ?))
     returning id, version, last_contact_at`,
    [version, version, version, scope.listenerId, tenants, CONTACT_RESOLUTION_SECONDS, version, version],
  );
  if (changed) return { listenerId: changed.id, version: changed.version, lastContactAt: timestampFromText(changed.last_contact_at) };
  if (!readBack) return undefined;
  // Written moments ago: as it is.
  const [current] = await em.execute<{ id: string; version: string | null; last_contact_at: string }[]>(
    'select id, version, last_contact_at from listener where id = ? and tenant_id = any(?::uuid[])', [scope.listenerId, tenants],
  );
  return current && { listenerId: current.id, version: current.version, lastContactAt: timestampFromText(current.last_contact_at) };
}
