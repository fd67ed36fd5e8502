// Secret values already decrypted, so that a page revealing them again does not decipher them again: about 650
// values a page of 100, whose deciphering (a cipher each, ~5-8 us) held a revealing page to three quarters of the
// masked page's rate. Making each decryption cheaper could not close that gap (docs/performance.md#secret-revealing-pages).
//
// An entry answers only the exact row it was made from: it is found by every byte of the row's ciphertext (its
// base64 text, as the listing reads it), and answers only a row of the same tenant, deployment, secret name and
// recorded key fingerprint. A ciphertext copied onto another row, a value rewritten (a fresh IV makes new bytes)
// or a row re-encrypted or marked unreadable by a rotation never finds it, and is deciphered, with its AAD
// checked, as without the cache. Only values that decrypted are kept. Keyed by the ciphertext alone, a lookup
// hashes one flat string the row already holds: a key made of every part (about 150 characters, put together
// for each value) cost 0.5 us a value to make, flatten and hash, a third of what a page paid beyond the masked one.
//
// Plaintext in memory outlives the request here, so it is held tight: at most `maxEntries` values and about
// `maxBytes`, each for `ttlMs` at most (oldest first out); all of it is dropped when any API key is revoked or a
// secrets-key rotation commits a batch (both heard through PostgreSQL NOTIFY, from every process), and when the
// LISTEN connection drops, without which it answers nothing (it could miss either). It is read and filled only
// for callers that may read secrets (secret-revealer.ts).
import type { DatabaseNotifications } from '../../db/database-notifications.ts';
import { onRevocation } from '../tenancy/api-key-revocations.ts';
import { onRotation } from './rotation-notice.ts';

/** A stored secret as a listing reads it (deployments/secret-listing.ts): the row's own columns. */
export interface ListedSecret {
  readonly deployment_id: string;
  readonly name: string;
  /** The stored bytes as base64 text (PostgreSQL's `encode(value_ciphertext, 'base64')`). */
  readonly value_ciphertext: string;
  /** The fingerprint the row records; null (or absent): written before fingerprints were recorded. */
  readonly key_fingerprint?: string | null;
}

export interface DecryptedValuesCacheLimits {
  maxEntries: number;
  /** Plaintexts and the rows' texts that find them, as V8 holds them (about: 2 bytes a character for the values). */
  maxBytes: number;
  ttlMs: number;
}

export const DEFAULT_TTL_MS = 60_000;
/** What V8 spends on an entry beside its strings (the map slot, the entry object of seven fields): an estimate, counted against maxBytes. */
const ENTRY_OVERHEAD = 128;

/** A kept value, with the row it answers (beside its ciphertext, the entry's key). */
interface Entry {
  tenantId: string;
  deploymentId: string;
  name: string;
  keyFingerprint: string | null;
  value: string;
  bytes: number;
  expires: number;
}

/** Whether the entry was made from this row of this tenant (its ciphertext found it). */
const madeFrom = (entry: Entry, tenantId: string, row: ListedSecret) =>
  entry.deploymentId === row.deployment_id && entry.name === row.name
  && entry.keyFingerprint === (row.key_fingerprint ?? null) && entry.tenantId === tenantId;

export class DecryptedValuesCache {
  readonly limits: DecryptedValuesCacheLimits;
  /** By the row's ciphertext text, in the order filled: the first is the oldest, the one evicted first. */
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
  get(tenantId: string, row: ListedSecret, now: number): string | undefined {
    const key = row.value_ciphertext;
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.expires > now && madeFrom(entry, tenantId, row)) {
      this.hits++;
      return entry.value;
    }
    // Stale, gone; made from another row (a copied ciphertext), kept for that row.
    if (entry !== undefined && entry.expires <= now) this.#remove(key, entry);
    this.misses++;
    return undefined;
  }

  /**
   * Keeps the value this row of this tenant decrypted to, unless the cache was cleared since `generation` (when
   * its decryption began).
   */
  set(tenantId: string, row: ListedSecret, value: string, generation: number, now: number): void {
    if (!this.active || generation !== this.#generation) return;
    const key = row.value_ciphertext;
    const keyFingerprint = row.key_fingerprint ?? null;
    // The tenant id is the revealer's, shared by every entry of the tenant; the row's strings are held here.
    const bytes = key.length + row.deployment_id.length + row.name.length + (keyFingerprint?.length ?? 0) + 2 * value.length + ENTRY_OVERHEAD;
    if (bytes > this.limits.maxBytes) return;
    const previous = this.#entries.get(key);
    if (previous) this.#remove(key, previous);
    this.#entries.set(key, { tenantId, deploymentId: row.deployment_id, name: row.name, keyFingerprint, value, bytes, expires: now + this.limits.ttlMs });
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
