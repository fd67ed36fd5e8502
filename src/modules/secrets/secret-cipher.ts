// AES-256-GCM for secret values. Each ciphertext is bound (as associated data) to the deployment and secret
// name it belongs to, so a ciphertext copied onto another row, or another tenant's deployment, fails to
// decrypt instead of leaking. Layout: version (1) | iv (12) | auth tag (16) | ciphertext.
//
// The cipher holds a key ring: the current key, which writes, and previous keys, which only read (during a
// rotation, see key-rotation.ts). Each row records the fingerprint of the key that wrote it, so a reader
// picks the right key at once and the database can tell which keys its secrets need.
import { createCipheriv, createDecipheriv, createSecretKey, randomFillSync, type KeyObject } from 'node:crypto';
import { keyFingerprint, MARKED_UNREADABLE } from './key-fingerprint.ts';
import { DecryptionThread } from './decryption-thread.ts';

const VERSION = 1;
const IV_LENGTH = 12;
const TAG_LENGTH = 16;
/** IVs drawn at once: one randomBytes call per IV cost 4 of the 12 us of sealing a value (the import seals hundreds of thousands). */
const IV_POOL = 1024;

export interface SecretSlot {
  deploymentId: string;
  name: string;
}

/** What a secret row stores: the ciphertext, and the fingerprint of the key that made it. */
export interface SealedSecret {
  valueCiphertext: Buffer;
  keyFingerprint: string;
}

export class SecretDecryptionError extends Error {
  override name = 'SecretDecryptionError';
  readonly deploymentId: string;
  readonly secretName: string;
  /** The fingerprint the row records (null: written before fingerprints were recorded). */
  readonly keyFingerprint: string | null;
  /** Why, in words (the end of the message): the decryption thread sends it back instead of the error. */
  readonly reason: string;
  constructor(slot: SecretSlot, keyFingerprint: string | null, why: string) {
    // Names and fingerprints only: never the value or key material.
    super(`Secret "${slot.name}" of deployment ${slot.deploymentId} cannot be decrypted: ${why}`);
    this.deploymentId = slot.deploymentId;
    this.secretName = slot.name;
    this.keyFingerprint = keyFingerprint;
    this.reason = why;
  }
}

function associatedData({ deploymentId, name }: SecretSlot): Buffer {
  return Buffer.from(JSON.stringify([deploymentId, name]), 'utf8');
}

/**
 * Where a sealed text other than a secret's value belongs (a stored answer that may hold values): a label
 * naming the column, then what identifies its row. Its JSON is the associated data; it never equals a secret's
 * `[deploymentId, name]`, whose first element is a uuid, never a label.
 */
export type SealedTextContext = readonly [label: string, ...parts: string[]];

const contextData = (context: SealedTextContext) => Buffer.from(JSON.stringify(context), 'utf8');

const asBuffer = (stored: Uint8Array) => (Buffer.isBuffer(stored) ? stored : Buffer.from(stored));
const wellFormed = (sealed: Buffer) => sealed.length >= 1 + IV_LENGTH + TAG_LENGTH && sealed[0] === VERSION;

/** The plaintext, or undefined when the key does not open it (or it is malformed). */
function open(key: KeyObject, sealed: Buffer, aad: Buffer): string | undefined {
  if (!wellFormed(sealed)) return undefined;
  const iv = sealed.subarray(1, 1 + IV_LENGTH);
  const tag = sealed.subarray(1 + IV_LENGTH, 1 + IV_LENGTH + TAG_LENGTH);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    // GCM is a stream mode: update() gives every byte of plaintext, final() only checks the tag.
    const plaintext = decipher.update(sealed.subarray(1 + IV_LENGTH + TAG_LENGTH));
    decipher.final();
    return plaintext.toString('utf8');
  } catch {
    return undefined;
  }
}

/** A stored secret to decrypt, with where it belongs and the fingerprint its row records. */
export interface StoredSecret {
  stored: Uint8Array;
  slot: SecretSlot;
  keyFingerprint: string | null;
}

/** The keys of a cipher, current first, by fingerprint: what the decryption thread is started with. */
export type KeyRing = ReadonlyMap<string, KeyObject>;

export class SecretCipher {
  /** Fingerprint of the current key: the one every new ciphertext is made with. */
  readonly fingerprint: string;
  /**
   * Every key this cipher reads, by fingerprint, the current one first. As KeyObjects: given raw bytes, Node
   * makes a key object for every cipher it creates, which took 55 of the 65 us of decrypting a value.
   */
  readonly #keys: Map<string, KeyObject>;
  /** Random bytes for the next IVs; each is used once (the offset only moves forward, and the pool is refilled). */
  readonly #ivs = Buffer.alloc(IV_LENGTH * IV_POOL);
  #ivOffset = this.#ivs.length;

  #thread: DecryptionThread | undefined;

  /** From the keys' bytes, or (in the decryption thread) from another cipher's key ring. */
  constructor(current: Buffer | KeyRing, previous: readonly Buffer[] = []) {
    if (!Buffer.isBuffer(current)) {
      this.#keys = new Map(current);
      this.fingerprint = [...current.keys()][0]!;
      return;
    }
    for (const key of [current, ...previous]) if (key.length !== 32) throw new Error('SecretCipher needs 32-byte keys');
    this.fingerprint = keyFingerprint(current);
    this.#keys = new Map([current, ...previous].map((key) => [keyFingerprint(key), createSecretKey(Buffer.from(key))]));
  }

  /** Fingerprints of every key this cipher reads, the current one first. */
  get fingerprints(): string[] {
    return [...this.#keys.keys()];
  }

  /**
   * The keys, for a thread of this process that seals or opens with them (the import's preparation thread):
   * KeyObjects are cloned into a thread, their bytes never pass through JavaScript.
   */
  get keyRing(): KeyRing {
    return this.#keys;
  }

  reads(fingerprint: string): boolean {
    return this.#keys.has(fingerprint);
  }

  #nextIv(): Buffer {
    if (this.#ivOffset === this.#ivs.length) {
      randomFillSync(this.#ivs);
      this.#ivOffset = 0;
    }
    this.#ivOffset += IV_LENGTH;
    return this.#ivs.subarray(this.#ivOffset - IV_LENGTH, this.#ivOffset);
  }

  seal(plaintext: string, slot: SecretSlot): SealedSecret {
    return this.#seal(plaintext, associatedData(slot));
  }

  /** Seals a text that may hold secret values (a stored answer) under the current key, bound to its context. */
  sealText(plaintext: string, context: SealedTextContext): SealedSecret {
    return this.#seal(plaintext, contextData(context));
  }

  /** The text sealText sealed for this context, or undefined when no configured key opens it there. */
  openText(stored: Uint8Array, context: SealedTextContext, keyFingerprint: string): string | undefined {
    const key = this.#keys.get(keyFingerprint);
    return key && open(key, asBuffer(stored), contextData(context));
  }

  #seal(plaintext: string, aad: Buffer): SealedSecret {
    const iv = this.#nextIv();
    const cipher = createCipheriv('aes-256-gcm', this.#keys.get(this.fingerprint)!, iv);
    cipher.setAAD(aad);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { valueCiphertext: Buffer.concat([Buffer.of(VERSION), iv, cipher.getAuthTag(), ciphertext]), keyFingerprint: this.fingerprint };
  }

  /**
   * The plaintext of a stored secret. `keyFingerprint` is what its row records; null (a row written before
   * fingerprints were recorded) tries every key.
   */
  decrypt(stored: Uint8Array, slot: SecretSlot, keyFingerprint: string | null): string {
    const sealed = asBuffer(stored);
    if (!wellFormed(sealed)) throw new SecretDecryptionError(slot, keyFingerprint, 'the stored ciphertext is malformed');
    if (keyFingerprint === MARKED_UNREADABLE) throw new SecretDecryptionError(slot, keyFingerprint, 'a key rotation found it damaged');
    if (keyFingerprint === null) {
      for (const key of this.#keys.values()) {
        const plaintext = open(key, sealed, associatedData(slot));
        if (plaintext !== undefined) return plaintext;
      }
      throw new SecretDecryptionError(slot, null, 'no configured key opens it');
    }
    const key = this.#keys.get(keyFingerprint);
    if (!key) throw new SecretDecryptionError(slot, keyFingerprint, `it was written under key ${keyFingerprint}, which is not configured`);
    const plaintext = open(key, sealed, associatedData(slot));
    if (plaintext === undefined) throw new SecretDecryptionError(slot, keyFingerprint, `it does not open with key ${keyFingerprint} (damaged, or moved from another row)`);
    return plaintext;
  }

  /**
   * The plaintexts of many stored secrets, or the error of each that cannot be decrypted. A page of them is
   * decrypted on a thread of its own (decryption-thread.ts), off the thread that serves every request; a few
   * are decrypted here, where the hop to the thread would cost more than they do.
   */
  async decryptMany(secrets: readonly StoredSecret[]): Promise<(string | SecretDecryptionError)[]> {
    if (secrets.length >= DecryptionThread.WORTH_IT_FROM) {
      this.#thread ??= new DecryptionThread(this.#keys);
      const outcomes = await this.#thread.decrypt(secrets);
      if (outcomes) {
        return outcomes.map((outcome, i) =>
          ('value' in outcome ? outcome.value : new SecretDecryptionError(secrets[i]!.slot, secrets[i]!.keyFingerprint, outcome.reason)));
      }
    }
    return secrets.map((secret) => this.decryptOrError(secret));
  }

  /** decrypt(), with the error returned instead of thrown. */
  decryptOrError({ stored, slot, keyFingerprint }: StoredSecret): string | SecretDecryptionError {
    try {
      return this.decrypt(stored, slot, keyFingerprint);
    } catch (error) {
      if (error instanceof SecretDecryptionError) return error;
      throw error;
    }
  }

  /** Stops the decryption thread, if one runs (a later decryptMany starts another). */
  async close(): Promise<void> {
    const thread = this.#thread;
    this.#thread = undefined;
    await thread?.stop();
  }

  /** Which of the configured keys open a stored ciphertext (none, one, or in theory several). */
  keysThatOpen(stored: Uint8Array, slot: SecretSlot): string[] {
    const sealed = asBuffer(stored);
    const aad = associatedData(slot);
    return [...this.#keys].filter(([, key]) => open(key, sealed, aad) !== undefined).map(([fingerprint]) => fingerprint);
  }
}
