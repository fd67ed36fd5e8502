// A worker thread that decrypts secrets in batches. A page of 100 deployments reveals about 650 values, and
// deciphering them on the thread that serves every request took 5 to 6 ms of it per page (each value is a
// cipher of its own, about 8 us): a page revealing secrets served at two thirds of the masked page's rate,
// and held up every request queued behind it. On this thread, the serving thread pays about 0.5 ms a page to
// hand the ciphertexts over and take the plaintexts back.
//
// The thread holds the same keys (KeyObjects are cloned into it; their bytes never pass through JavaScript)
// and runs the same SecretCipher. If it cannot start or dies, the batches it had are answered as undefined
// and decrypted where they were asked for: no request fails because of it. Idle, it does not keep the process
// alive.
import { Worker } from 'node:worker_threads';
import type { KeyRing, StoredSecret } from './secret-cipher.ts';

/** What the thread answers for one secret: its plaintext, or why it cannot be decrypted. */
export type DecryptionOutcome = { value: string } | { reason: string };

/**
 * A batch as it crosses to the thread: every ciphertext in one buffer that is moved, not copied (a ciphertext
 * read from PostgreSQL is a view of an 8 KB pool, which posting it alone would copy whole), and flat lists.
 */
export interface DecryptionRequest {
  id: number;
  ciphertexts: Uint8Array<ArrayBuffer>;
  /** Where each ciphertext ends in `ciphertexts`. */
  ends: Uint32Array<ArrayBuffer>;
  deploymentIds: string[];
  names: string[];
  keyFingerprints: (string | null)[];
}

/** Each secret's plaintext, or null and why. */
export interface DecryptionResponse {
  id: number;
  values: (string | null)[];
  reasons: (string | null)[];
}

export function packed(id: number, secrets: readonly StoredSecret[]): DecryptionRequest {
  const ends = new Uint32Array(secrets.length);
  let length = 0;
  secrets.forEach((secret, i) => (ends[i] = length += secret.stored.length));
  const ciphertexts = new Uint8Array(length);
  secrets.forEach((secret, i) => ciphertexts.set(secret.stored, ends[i]! - secret.stored.length));
  return {
    id, ciphertexts, ends,
    deploymentIds: secrets.map((secret) => secret.slot.deploymentId),
    names: secrets.map((secret) => secret.slot.name),
    keyFingerprints: secrets.map((secret) => secret.keyFingerprint),
  };
}

export function unpacked(request: DecryptionRequest): StoredSecret[] {
  return request.names.map((name, i) => ({
    stored: request.ciphertexts.subarray(i === 0 ? 0 : request.ends[i - 1]!, request.ends[i]!),
    slot: { deploymentId: request.deploymentIds[i]!, name },
    keyFingerprint: request.keyFingerprints[i]!,
  }));
}

export class DecryptionThread {
  /**
   * Fewer values are decrypted where they are asked for: the hop to the thread and back (about 0.1 ms) costs
   * more than deciphering a detail page's handful.
   */
  static readonly WORTH_IT_FROM = 32;

  readonly #worker: Worker | undefined;
  readonly #pending = new Map<number, (outcomes: DecryptionOutcome[] | undefined) => void>();
  #nextId = 0;
  #gone = false;

  constructor(keys: KeyRing) {
    try {
      this.#worker = new Worker(new URL('./decryption-thread.worker.ts', import.meta.url), { workerData: { keys } });
    } catch {
      this.#gone = true;
      return;
    }
    this.#worker.on('message', ({ id, values, reasons }: DecryptionResponse) =>
      this.#settle(id, values.map((value, i) => (value === null ? { reason: reasons[i]! } : { value }))));
    this.#worker.on('error', () => this.#end());
    this.#worker.on('exit', () => this.#end());
    // Idle, the thread keeps no process alive; while it holds a batch, it does (see decrypt). After the
    // listeners: adding a 'message' listener refs the worker again.
    this.#worker.unref();
  }

  /** Each secret's outcome, in order; undefined when the thread is not there to answer. */
  decrypt(secrets: readonly StoredSecret[]): Promise<DecryptionOutcome[] | undefined> {
    if (this.#gone || !this.#worker) return Promise.resolve(undefined);
    const id = this.#nextId++;
    return new Promise((resolve) => {
      if (this.#pending.size === 0) this.#worker!.ref();
      this.#pending.set(id, resolve);
      const request = packed(id, secrets);
      this.#worker!.postMessage(request, [request.ciphertexts.buffer, request.ends.buffer]);
    });
  }

  async stop(): Promise<void> {
    this.#end();
    await this.#worker?.terminate();
  }

  #settle(id: number, outcomes: DecryptionOutcome[] | undefined): void {
    const resolve = this.#pending.get(id);
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker?.unref();
    resolve?.(outcomes);
  }

  /** Nothing more is sent; what was sent is decrypted by the askers themselves. */
  #end(): void {
    this.#gone = true;
    for (const id of [...this.#pending.keys()]) this.#settle(id, undefined);
  }
}
