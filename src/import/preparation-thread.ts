// Prepares a large import document (batch-preparer.ts: reading, schema checks, rows, sealing, COPY data) on a
// worker thread, while the importer's thread feeds PostgreSQL. On one thread the two took turns: each of a
// batch's twenty-odd statements waited, once PostgreSQL had answered, until the preparation of the next batch
// let the event loop read the answer, and PostgreSQL sat idle a quarter of the import (sampled from
// pg_stat_activity: "ClientRead" between statements). docs/performance.md#import has the numbers.
//
// The document's chunks are read here and handed over one at a time, as the thread asks for them; the thread
// hands back the steps of batch-preparer.ts in document order. It hands a finished batch over only once the
// importer has taken the one before, so memory stays bounded: one batch in PostgreSQL, one waiting for it, one
// handed over, one finished or being prepared.
import { Worker } from 'node:worker_threads';
import type { SecretCipher } from '../modules/secrets/secret-cipher.ts';
import type { PreparationStep } from './batch-preparer.ts';
import { ImportError } from './import-error.ts';

/** An error as it crosses between threads: an ImportError keeps its path and problem, anything else its text. */
export type CrossingError = { importError: { path: string; problem: string } } | { error: { message: string; stack?: string } };

/** What the thread sends: a wish for the next chunk, a step (an invalid element's error as a CrossingError), the end, or a failure. */
export type FromThread =
  | { more: true }
  | { step: Exclude<PreparationStep, { invalid: ImportError }> | { invalid: CrossingError } }
  | { done: true }
  | { failed: CrossingError };

/** What the thread is sent: the document's next chunk or its end, and leave to hand over one more batch. */
export type ToThread = { chunk: Uint8Array | string } | { end: true } | { credit: true };

export function crossing(error: unknown): CrossingError {
  if (error instanceof ImportError) return { importError: { path: error.path, problem: error.problem } };
  const { message, stack } = error instanceof Error ? error : { message: String(error), stack: undefined };
  return { error: { message, stack } };
}

function arrived(crossed: CrossingError): Error {
  if ('importError' in crossed) return new ImportError(crossed.importError.path, crossed.importError.problem);
  return Object.assign(new Error(crossed.error.message), { stack: crossed.error.stack });
}

/** Messages in arrival order, taken one at a time; a failure is thrown to the taker once those before it are taken. */
class Inbox<T> {
  readonly #messages: T[] = [];
  #failure: Error | undefined;
  #waiting: (() => void) | undefined;

  put(message: T): void {
    this.#messages.push(message);
    this.#wake();
  }

  fail(error: Error): void {
    this.#failure ??= error;
    this.#wake();
  }

  async take(): Promise<T> {
    while (this.#messages.length === 0) {
      if (this.#failure) throw this.#failure;
      await new Promise<void>((resolve) => (this.#waiting = resolve));
    }
    return this.#messages.shift()!;
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.();
  }
}

/** A chunk as it is posted: a copy of exactly its bytes, moved (a Buffer may be a view of a larger pool, which posting would copy whole). */
function posted(chunk: Buffer | string): { message: ToThread; transfer: ArrayBuffer[] } {
  if (typeof chunk === 'string') return { message: { chunk }, transfer: [] };
  const bytes = new Uint8Array(chunk);
  return { message: { chunk: bytes }, transfer: [bytes.buffer] };
}

/** The steps of preparing `input` (as prepareDocument gives them), prepared on a thread of their own. */
export async function* prepareOnThread(input: AsyncIterable<Buffer | string> | Iterable<Buffer | string>, cipher: SecretCipher): AsyncGenerator<PreparationStep> {
  const worker = new Worker(new URL('./preparation-thread.worker.ts', import.meta.url), { workerData: { keys: cipher.keyRing } });
  const inbox = new Inbox<FromThread>();
  worker.on('message', (message: FromThread) => inbox.put(message));
  worker.on('error', (error) => inbox.fail(error));
  worker.on('exit', (code) => inbox.fail(new Error(`the import's preparation thread stopped (exit code ${code})`)));
  const chunks = Symbol.asyncIterator in input ? input[Symbol.asyncIterator]() : input[Symbol.iterator]();
  // One read at a time, in order; a failing read (a file that cannot be read) fails the import.
  let reading: Promise<void> = Promise.resolve();
  const readNext = () => {
    reading = reading.then(async () => {
      const next = await chunks.next();
      if (next.done) return worker.postMessage({ end: true } satisfies ToThread);
      const { message, transfer } = posted(next.value);
      worker.postMessage(message, transfer);
    }).catch((error: Error) => inbox.fail(error));
  };
  try {
    for (;;) {
      const message = await inbox.take();
      if ('more' in message) readNext();
      else if ('done' in message) return;
      else if ('failed' in message) throw arrived(message.failed);
      else if ('invalid' in message.step) yield { invalid: arrived(message.step.invalid) as ImportError };
      else {
        yield message.step;
        // Taken: the thread may hand over the next batch.
        if ('batch' in message.step) worker.postMessage({ credit: true } satisfies ToThread);
      }
    }
  } finally {
    await worker.terminate();
    await reading;
    await chunks.return?.();
  }
}
