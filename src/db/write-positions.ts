// Read your writes (docs/operations.md#read-your-writes): where the primary's write-ahead log stood once a
// caller's last write had committed. A read of that caller's may go to a replica only once the replica has
// replayed that far (read-replicas.ts). The record must be where every process that may serve the caller's
// next request finds it, before the write's answer leaves: this process's memory for a single process, the
// cluster primary's for the workers of one gateway (cluster/cluster-write-positions.ts), Redis across
// gateways (redis-write-positions.ts).
import type { WalPosition } from './wal-position.ts';

export interface WritePositions {
  /**
   * Records that `caller` wrote up to `position`, for `ttlMs` (a later, lower position never lowers it).
   * Resolves once the record is shared; never rejects (a store that failed says so in the log).
   */
  note(caller: string, position: WalPosition, ttlMs: number): Promise<void>;
  /**
   * The position `caller`'s reads must see: undefined when it has no record (any replica will do), or
   * UNKNOWN_WAL_POSITION when the store cannot answer (the primary then answers).
   */
  of(caller: string): WalPosition | undefined | Promise<WalPosition | undefined>;
  close(): Promise<void>;
}

/** Expired records are swept at most this often. */
const SWEEP_EVERY_MS = 10_000;

/** Records in this process's memory: a single process, and the cluster primary for its workers. */
export class LocalWritePositions implements WritePositions {
  readonly #records = new Map<string, { position: WalPosition; expiresAt: number }>();
  #nextSweep = 0;

  noteAtOnce(caller: string, position: WalPosition, ttlMs: number): void {
    const now = Date.now();
    if (now >= this.#nextSweep) this.#sweep(now);
    const record = this.#records.get(caller);
    const kept = record && record.expiresAt > now && record.position > position ? record.position : position;
    this.#records.set(caller, { position: kept, expiresAt: now + ttlMs });
  }

  note(caller: string, position: WalPosition, ttlMs: number): Promise<void> {
    this.noteAtOnce(caller, position, ttlMs);
    return Promise.resolve();
  }

  of(caller: string): WalPosition | undefined {
    const record = this.#records.get(caller);
    return record && record.expiresAt > Date.now() ? record.position : undefined;
  }

  close(): Promise<void> {
    this.#records.clear();
    return Promise.resolve();
  }

  #sweep(now: number): void {
    for (const [caller, record] of this.#records) if (record.expiresAt <= now) this.#records.delete(caller);
    this.#nextSweep = now + SWEEP_EVERY_MS;
  }
}
