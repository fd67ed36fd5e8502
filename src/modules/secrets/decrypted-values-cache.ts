// Secret values already decrypted, so that a page revealing them again does not decipher them again: about 650
// values a page of 100, whose deciphering (a cipher each, ~5-8 us) held a revealing page to three quarters of the
// masked page's rate. Making each decryption cheaper could not close that gap (docs/performance.md#secret-revealing-pages).
//
// An entry answers only the exact row it was made from: it is found by tenant, deployment, secret name, the
// fingerprint the row records and every byte of its ciphertext. A ciphertext copied onto another row, a value
// rewritten (a fresh IV makes new bytes) or a row re-encrypted or marked unreadable by a rotation never finds it,
// and is deciphered, with its AAD checked, as without the cache. Only values that decrypted are kept.
//
// Plaintext in memory outlives the request here, so it is held tight: at most `maxEntries` values and about
// `maxBytes`, each for `ttlMs` at most (oldest first out); all of it is dropped when any API key is revoked or a
// secrets-key rotation commits a batch (both heard through PostgreSQL NOTIFY, from every process), and when the
// LISTEN connection drops, without which it answers nothing (it could miss either). It is read and filled only
// for callers that may read secrets (secret-revealer.ts).
import type { DatabaseNotifications } from '../../db/database-notifications.ts';
import { onRevocation } from '../tenancy/api-key-revocations.ts';
import { onRotation } from './rotation-notice.ts';
import type { StoredSecret } from './secret-cipher.ts';

export interface DecryptedValuesCacheLimits {
  maxEntries: number;
  /** Plaintexts and the keys that find them, as V8 holds them (about: 2 bytes a character for the values). */
  maxBytes: number;
  ttlMs: number;
}

export const DEFAULT_TTL_MS = 60_000;
/** What V8 spends on an entry beside its strings (the map slot, the entry object): an estimate, counted against maxBytes. */
const ENTRY_OVERHEAD = 96;

interface Entry {
  value: string;
  bytes: number;
  expires: number;
}

/** The entry's key: every field before the ciphertext has a fixed form or a stated length, so no two rows share one. */
export function entryKey(tenantId: string, { stored, slot, keyFingerprint }: StoredSecret): string {
  // latin1: one character per byte, every byte kept.
  const ciphertext = Buffer.isBuffer(stored) ? stored.toString('latin1') : Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).toString('latin1');
  return `${tenantId}|${slot.deploymentId}|${keyFingerprint ?? '-'}|${slot.name.length}:${slot.name}|${ciphertext}`;
}

export class DecryptedValuesCache {
  readonly limits: DecryptedValuesCacheLimits;
  /** In the order filled: the first is the oldest, the one evicted first. */
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;
  #listening = false;
  /** Moves on at every clearing: a value decrypted before one is not put in after it. */
  #generation = 0;
  #detach: (() => void) | undefined;
  hits = 0;
  misses = 0;

  constructor(limits: Partial<DecryptedValuesCacheLimits> & Pick<DecryptedValuesCacheLimits, 'maxEntries' | 'maxBytes'>) {
    this.limits = { ttlMs: DEFAULT_TTL_MS, ...limits };
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#bytes };
  }

  /** Whether it answers at all: only while the revocations and rotations that clear it can reach it. */
  get active(): boolean {
    return this.#listening && this.limits.maxEntries > 0;
  }

  get generation(): number {
    return this.#generation;
  }

  /** The plaintext decrypted from exactly this row of this tenant, if kept and fresh. Counts a hit or a miss. */
  get(key: string, now: number): string | undefined {
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.expires > now) {
      this.hits++;
      return entry.value;
    }
    if (entry !== undefined) this.#remove(key, entry);
    this.misses++;
    return undefined;
  }

  /** Keeps a value that decrypted, unless the cache was cleared since `generation` (when its decryption began). */
  set(key: string, value: string, generation: number, now: number): void {
    if (!this.active || generation !== this.#generation) return;
    const bytes = key.length + 2 * value.length + ENTRY_OVERHEAD;
    if (bytes > this.limits.maxBytes) return;
    const previous = this.#entries.get(key);
    if (previous) this.#remove(key, previous);
    this.#entries.set(key, { value, bytes, expires: now + this.limits.ttlMs });
    this.#bytes += bytes;
    while (this.#entries.size > this.limits.maxEntries || this.#bytes > this.limits.maxBytes) {
      const [oldest, entry] = this.#entries.entries().next().value!;
      this.#remove(oldest, entry);
    }
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
    this.#bytes = 0;
  }

  /** Cleared by every revocation and rotation; answers only while the LISTEN connection is up. */
  listenTo(notifications: DatabaseNotifications): void {
    const onListening = () => { this.#listening = true; };
    const onLost = () => this.#lose();
    // A revocation names the key, not its tenants: every tenant's values go (revocations are rare).
    const stopRevocations = onRevocation(notifications, () => this.clear());
    const stopRotations = onRotation(notifications, () => this.clear());
    notifications.on('listening', onListening);
    notifications.on('lost', onLost);
    this.#listening = notifications.listening;
    this.#detach = () => {
      stopRevocations();
      stopRotations();
      notifications.off('listening', onListening);
      notifications.off('lost', onLost);
    };
  }

  stop(): void {
    this.#detach?.();
    this.#detach = undefined;
    this.#lose();
  }

  #lose(): void {
    this.#listening = false;
    this.clear();
  }

  #remove(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}
