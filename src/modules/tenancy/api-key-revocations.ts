// A revoked key must stop working everywhere at once, also where verified keys are cached: this process
// hears of a revocation through an event, other processes (a running service, when the CLI revokes)
// through PostgreSQL NOTIFY on REVOCATION_CHANNEL.
import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';

export const REVOCATION_CHANNEL = 'api_key_revoked';

/** Emits `revoked` with the key's id. */
export const revocations = new EventEmitter();

export async function announceRevocation(em: EntityManager, apiKeyId: string): Promise<void> {
  revocations.emit('revoked', apiKeyId);
  await em.getConnection().execute('select pg_notify(?, ?)', [REVOCATION_CHANNEL, apiKeyId]);
}
