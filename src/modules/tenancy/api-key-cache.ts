// Verified API keys, kept so that a request does not pay a database round trip to authenticate. Safe only
// while revocations reach it: it answers only while the process's LISTEN connection is up (and is emptied
// whenever that connection drops), hears this process's revocations directly, and keeps an entry one minute
// at most. Entries are found by the key as presented, not by its SHA-256: hashing every request's key cost a
// `{ __typename }` about 3% of its CPU (docs/performance.md#authentication-at-once). So a verified key's
// plaintext stays in this process's memory while its entry lives (a minute at most), as it is in the memory of
// every request that presents it; it is never written anywhere, and the database still holds only hashes.
import type { DatabaseNotifications } from '../../db/database-notifications.ts';
import { onRevocation } from './api-key-revocations.ts';

export interface VerifiedKey {
  apiKeyId: string;
  tenantIds: string[];
  mayReadSecrets: boolean;
  mayWrite: boolean;
  mayReconcile: boolean;
  /** The listener a data-plane key is bound to; null: none. */
  listenerId: string | null;
}

const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

export class ApiKeyCache {
  private readonly entries = new Map<string, { key: VerifiedKey; expires: number }>();
  private listening = false;
  private changes = 0;
  private detach: (() => void) | undefined;

  /** The verified key for a presented key, if cached and the cache is trustworthy right now. */
  get(presented: string): VerifiedKey | undefined {
    if (!this.listening) return undefined;
    const entry = this.entries.get(presented);
    if (!entry) return undefined;
    if (entry.expires < Date.now()) {
      this.entries.delete(presented);
      return undefined;
    }
    return entry.key;
  }

  /**
   * Moves on with every revocation heard and every loss of the LISTEN connection. A key read from the database
   * is cached only if nothing moved since the read began: a revocation that arrives while the read is in
   * flight must not be overwritten by the (older) row the read returns.
   */
  get generation(): number {
    return this.changes;
  }

  set(presented: string, key: VerifiedKey, readAtGeneration: number): void {
    if (!this.listening || readAtGeneration !== this.changes) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(presented, { key, expires: Date.now() + TTL_MS });
  }

  evict(apiKeyId: string): void {
    this.changes++;
    for (const [presented, entry] of this.entries) if (entry.key.apiKeyId === apiKeyId) this.entries.delete(presented);
  }

  /**
   * Hears revocations (this process's, and every other's through the LISTEN connection); the cache serves
   * entries only while that connection listens.
   */
  listenTo(notifications: DatabaseNotifications): void {
    const onListening = () => { this.listening = true; };
    const onLost = () => this.lose();
    const stopRevocations = onRevocation(notifications, (apiKeyId) => this.evict(apiKeyId));
    notifications.on('listening', onListening);
    notifications.on('lost', onLost);
    this.listening = notifications.listening;
    this.detach = () => {
      stopRevocations();
      notifications.off('listening', onListening);
      notifications.off('lost', onLost);
    };
  }

  stop(): void {
    this.detach?.();
    this.detach = undefined;
    this.lose();
  }

  private lose(): void {
    this.changes++;
    this.listening = false;
    this.entries.clear();
  }
}
