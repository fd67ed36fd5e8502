// The preparation thread's side (see preparation-thread.ts): prepareDocument over the chunks the importer's
// thread sends, with the same keys (cloned KeyObjects), each step posted back in order. A finished batch waits
// for leave to be handed over (one at a time beyond the first), so the thread never runs far ahead.
import { parentPort, workerData } from 'node:worker_threads';
import { SecretCipher, type KeyRing } from '../modules/secrets/secret-cipher.ts';
import { prepareDocument } from './batch-preparer.ts';
import { crossing, type FromThread, type ToThread } from './preparation-thread.ts';

const port = parentPort!;
const cipher = new SecretCipher((workerData as { keys: KeyRing }).keys);
const send = (message: FromThread) => port.postMessage(message);

const input: ({ chunk: Uint8Array | string } | { end: true })[] = [];
let credits = 1;
let wake: (() => void) | undefined;
port.on('message', (message: ToThread) => {
  if ('credit' in message) credits++;
  else input.push(message);
  wake?.();
});
const nextMessage = () => new Promise<void>((resolve) => (wake = resolve));

async function* documentChunks(): AsyncGenerator<Buffer | string> {
  send({ more: true });
  for (;;) {
    while (input.length === 0) await nextMessage();
    const message = input.shift()!;
    if ('end' in message) return;
    // Asked for before this one is read: the importer's thread reads the next chunk meanwhile.
    send({ more: true });
    const { chunk } = message;
    yield typeof chunk === 'string' ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  }
}

try {
  for await (const step of prepareDocument(documentChunks(), cipher)) {
    if ('invalid' in step) {
      send({ step: { invalid: crossing(step.invalid) } });
      continue;
    }
    if ('batch' in step) {
      while (credits === 0) await nextMessage();
      credits--;
    }
    send({ step });
  }
  send({ done: true });
} catch (error) {
  send({ failed: crossing(error) });
}
