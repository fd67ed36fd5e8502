// The decryption thread's side (see decryption-thread.ts): the same SecretCipher, over the key ring it was
// started with, answering each batch in order.
import { parentPort, workerData } from 'node:worker_threads';
import { SecretCipher, type KeyRing } from './secret-cipher.ts';
import { unpacked, type DecryptionRequest, type DecryptionResponse } from './decryption-thread.ts';

const cipher = new SecretCipher((workerData as { keys: KeyRing }).keys);

parentPort!.on('message', (request: DecryptionRequest) => {
  const secrets = unpacked(request);
  const values: (string | null)[] = [];
  const reasons: (string | null)[] = [];
  for (const secret of secrets) {
    const decrypted = cipher.decryptOrError(secret);
    values.push(typeof decrypted === 'string' ? decrypted : null);
    reasons.push(typeof decrypted === 'string' ? null : decrypted.reason);
  }
  parentPort!.postMessage({ id: request.id, values, reasons } satisfies DecryptionResponse);
});
