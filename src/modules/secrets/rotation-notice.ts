// A secrets-key rotation runs in a process of its own (`npm run secrets -- rotate`); the services hear that it
// rewrote rows through PostgreSQL NOTIFY, sent in the transaction of each batch (so heard when it commits), and
// drop the values they keep decrypted (decrypted-values-cache.ts).
import type { DatabaseNotifications } from '../../db/database-notifications.ts';

export const ROTATION_CHANNEL = 'secrets_rotated';

/** Inside the batch's transaction: PostgreSQL delivers it when (and only if) the batch commits. */
export async function announceRotatedBatch(tx: { execute: (sql: string, params: unknown[]) => Promise<unknown> }): Promise<void> {
  await tx.execute('select pg_notify(?, ?)', [ROTATION_CHANNEL, 'batch']);
}

/** Calls `handle` at every rotated batch, from any process; returns how to stop. */
export function onRotation(notifications: DatabaseNotifications, handle: () => void): () => void {
  const onNotification = (channel: string) => {
    if (channel === ROTATION_CHANNEL) handle();
  };
  notifications.on('notification', onNotification);
  return () => notifications.off('notification', onNotification);
}
