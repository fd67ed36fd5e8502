// AES-256-GCM for secret values. Each ciphertext is bound (as associated data) to the deployment and secret
// name it belongs to, so a ciphertext copied onto another row, or another tenant's deployment, fails to
// decrypt instead of leaking. Layout: version (1) | iv (12) | auth tag (16) | ciphertext.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_LENGTH = 12;
const TAG_LENGTH = 16;

export interface SecretSlot {
  deploymentId: string;
  name: string;
}

export class SecretDecryptionError extends Error {
  override name = 'SecretDecryptionError';
  constructor(slot: SecretSlot) {
    // Names only: never the value or key material.
    super(`Secret "${slot.name}" of deployment ${slot.deploymentId} cannot be decrypted with the configured SECRETS_KEY`);
  }
}

function associatedData({ deploymentId, name }: SecretSlot): Buffer {
  return Buffer.from(JSON.stringify([deploymentId, name]), 'utf8');
}

export class SecretCipher {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('SecretCipher needs a 32-byte key');
    this.#key = Buffer.from(key);
  }

  encrypt(plaintext: string, slot: SecretSlot): Buffer {
    const iv = randomBytes(IV_LENGTH);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(associatedData(slot));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.of(VERSION), iv, cipher.getAuthTag(), ciphertext]);
  }

  decrypt(stored: Uint8Array, slot: SecretSlot): string {
    const sealed = Buffer.isBuffer(stored) ? stored : Buffer.from(stored);
    if (sealed.length < 1 + IV_LENGTH + TAG_LENGTH || sealed[0] !== VERSION) throw new SecretDecryptionError(slot);
    const iv = sealed.subarray(1, 1 + IV_LENGTH);
    const tag = sealed.subarray(1 + IV_LENGTH, 1 + IV_LENGTH + TAG_LENGTH);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, iv);
      decipher.setAAD(associatedData(slot));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(sealed.subarray(1 + IV_LENGTH + TAG_LENGTH)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptionError(slot);
    }
  }
}
