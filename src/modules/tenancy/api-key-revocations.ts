// A revoked key must stop working everywhere at once, also where verified keys are cached and where its
// streams are open: this process hears of a revocation through an event, other processes (a running service,
// when the CLI revokes) through PostgreSQL NOTIFY on REVOCATION_CHANNEL.
import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DatabaseNotifications } from '../../db/database-notifications.ts';

export const REVOCATION_CHANNEL = 'api_key_revoked';

/** Emits `revoked` with the key's id. */
export const revocations = new EventEmitter<{ revoked: [apiKeyId: string] }>();
revocations.setMaxListeners(0);

export async function announceRevocation(em: EntityManager, apiKeyId: string): Promise<void> {
  revocations.emit('revoked', apiKeyId);
  await em.getConnection().execute('select pg_notify(?, ?)', [REVOCATION_CHANNEL, apiKeyId]);
}

/** Calls `handle` with the id of every key revoked, here or in another process; returns how to stop. */
export function onRevocation(notifications: DatabaseNotifications, handle: (apiKeyId: string) => void): () => void {
  const onNotification = (channel: string, payload: string) => {
    if (channel === REVOCATION_CHANNEL && payload) handle(payload);
  };
  revocations.on('revoked', handle);
  notifications.on('notification', onNotification);
  return () => {
    revocations.off('revoked', handle);
    notifications.off('notification', onNotification);
  };
}
