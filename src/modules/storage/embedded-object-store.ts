// The built-in object store (docs/decisions.md#source-archives): each object is a file under DATA_DIR/objects,
// reached through URLs of this service signed by url-signature.ts and served by embedded-object-requests.ts.
// An upload streams into a file of its own under `.incoming/` (constant memory, whatever its size) and is
// renamed into place only once its last byte has arrived: a half-sent or oversized upload never becomes an
// object, and a reader never sees half of one.
import { randomUUID } from 'node:crypto';
import type { ReadStream } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { isObjectPath, type ObjectStore, type UploadGrant, type UrlGrant } from './object-store.ts';
import type { UrlSigner } from './url-signature.ts';

/** Where the service answers the URLs of its objects. */
export const OBJECTS_PATH = '/objects/';
/** Uploads in progress: not an object path (those start with a letter or digit), so never served. */
const INCOMING = '.incoming';

/** How an upload ended. */
export type UploadOutcome = 'stored' | 'too-large' | 'aborted';

class TooLarge extends Error {}
class Aborted extends Error {}

export interface EmbeddedObjectStoreOptions {
  /** The objects' directory (DATA_DIR/objects). */
  directory: string;
  signer: UrlSigner;
  /** The service's public address (PUBLIC_URL, or the one it listens on), without a trailing `/`; read when a URL is made. */
  baseUrl: () => string;
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export class EmbeddedObjectStore implements ObjectStore {
  readonly kind = 'embedded';
  readonly signer: UrlSigner;
  readonly #directory: string;
  readonly #baseUrl: () => string;

  constructor({ directory, signer, baseUrl }: EmbeddedObjectStoreOptions) {
    this.#directory = path.resolve(directory);
    this.signer = signer;
    this.#baseUrl = baseUrl;
  }

  async uploadUrl(objectPath: string, { expiresAt, maxBytes }: UploadGrant): Promise<string> {
    const expires = seconds(expiresAt);
    const signature = this.signer.sign({ method: 'PUT', path: objectPath, expires, maxBytes });
    return `${this.#urlOf(objectPath)}?expires=${expires}&max_bytes=${maxBytes}&signature=${signature}`;
  }

  async downloadUrl(objectPath: string, { expiresAt }: UrlGrant): Promise<string> {
    const expires = seconds(expiresAt);
    return `${this.#urlOf(objectPath)}?expires=${expires}&signature=${this.signer.sign({ method: 'GET', path: objectPath, expires })}`;
  }

  async sizeOf(objectPath: string): Promise<number | undefined> {
    try {
      const stat = await fs.stat(this.#fileOf(objectPath));
      return stat.isFile() ? stat.size : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(objectPath: string): Promise<void> {
    const file = this.#fileOf(objectPath);
    await fs.rm(file, { force: true });
    // The deployment's folder, once empty (an upload racing with this re-creates it: see put).
    await fs.rmdir(path.dirname(file)).catch(() => {});
  }

  async close(): Promise<void> {}

  /**
   * Streams `body` into the object at `objectPath`, refusing it once it passes `maxBytes`. Only a body received
   * to its end becomes the object (replacing one there, as S3 does); anything else leaves no trace.
   */
  async put(objectPath: string, body: IncomingMessage, maxBytes: number): Promise<UploadOutcome> {
    const file = this.#fileOf(objectPath);
    const incoming = path.join(this.#directory, INCOMING);
    await fs.mkdir(incoming, { recursive: true, mode: 0o700 });
    const part = path.join(incoming, `${randomUUID()}.part`);
    const sink = new PartFile(part, maxBytes);
    // A client that goes away mid-body: its request closes without being complete.
    const closed = () => {
      if (!body.complete) sink.destroy(new Aborted());
    };
    body.once('close', closed);
    // `pipe`, not pipeline: the request must stay open when the limit refuses it, so that the 413 reaches the client.
    body.pipe(sink);
    try {
      await finished(sink);
    } catch (error) {
      body.unpipe(sink);
      sink.destroy();
      await finished(sink).catch(() => {});
      await fs.rm(part, { force: true });
      if (error instanceof TooLarge) return 'too-large';
      if (error instanceof Aborted || !body.complete) return 'aborted';
      throw error;
    } finally {
      body.off('close', closed);
    }
    try {
      await this.#moveIntoPlace(part, file);
    } catch (error) {
      await fs.rm(part, { force: true });
      throw error;
    }
    return 'stored';
  }

  /** The object's bytes and size, or undefined when there is none. */
  async open(objectPath: string): Promise<{ size: number; stream: ReadStream } | undefined> {
    const handle = await fs.open(this.#fileOf(objectPath), 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'EISDIR') return undefined;
      throw error;
    });
    if (!handle) return undefined;
    const stat = await handle.stat();
    if (!stat.isFile()) {
      await handle.close();
      return undefined;
    }
    return { size: stat.size, stream: handle.createReadStream() };
  }

  async #moveIntoPlace(part: string, file: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      try {
        await fs.rename(part, file);
        return;
      } catch (error) {
        // The folder was removed by a delete between the two calls: make it again, once.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt > 0) throw error;
      }
    }
  }

  #urlOf(objectPath: string): string {
    if (!isObjectPath(objectPath)) throw new Error(`not an object path: ${JSON.stringify(objectPath)}`);
    return `${this.#baseUrl()}${OBJECTS_PATH}${objectPath}`;
  }

  #fileOf(objectPath: string): string {
    // Checked here too, so that no caller can reach a file outside the directory.
    if (!isObjectPath(objectPath)) throw new Error(`not an object path: ${JSON.stringify(objectPath)}`);
    return path.join(this.#directory, ...objectPath.split('/'));
  }
}

/** Bytes of an upload queued while the file is being written: written together by the next writev. */
const QUEUED_BYTES = 1024 * 1024;

/**
 * A new file (never one that exists) receiving an upload's chunks: at most `maxBytes` of them (TooLarge past it),
 * fsync'd before it finishes. Each chunk's memory is given back as soon as it is written (see `release`).
 */
class PartFile extends Writable {
  readonly #path: string;
  readonly #maxBytes: number;
  #handle: FileHandle | undefined;
  #size = 0;

  constructor(file: string, maxBytes: number) {
    // Chunks that arrive during a write queue up to QUEUED_BYTES (the request is paused past it) and are written
    // by one writev.
    super({ highWaterMark: QUEUED_BYTES });
    this.#path = file;
    this.#maxBytes = maxBytes;
  }

  override _construct(callback: (error?: Error | null) => void): void {
    fs.open(this.#path, 'wx', 0o600).then((handle) => {
      this.#handle = handle;
      callback();
    }, callback);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#writeAll([chunk]).then(() => callback(), callback);
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    this.#writeAll(chunks.map(({ chunk }) => chunk)).then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#handle!.sync().then(() => this.#close()).then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#close().then(() => callback(error), () => callback(error));
  }

  async #writeAll(chunks: Buffer[]): Promise<void> {
    const bytes = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    if (this.#size + bytes > this.#maxBytes) throw new TooLarge();
    let position = this.#size;
    this.#size += bytes;
    let rest = chunks;
    while (rest.length > 0) {
      const { bytesWritten } = await this.#handle!.writev(rest, position);
      position += bytesWritten;
      rest = unwritten(rest, bytesWritten);
    }
    for (const chunk of chunks) release(chunk);
  }

  async #close(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close();
  }
}

/** What is left of `chunks` after their first `bytes` were written. */
function unwritten(chunks: Buffer[], bytes: number): Buffer[] {
  let index = 0;
  while (index < chunks.length && bytes >= chunks[index]!.length) bytes -= chunks[index++]!.length;
  if (index === chunks.length) return [];
  return [chunks[index]!.subarray(bytes), ...chunks.slice(index + 1)];
}

/**
 * Frees a written chunk's memory now instead of at some later garbage collection. Node's HTTP parser copies each
 * piece of a body into a `Buffer` of its own (up to 64 KiB, outside V8's heap); V8 counts that memory but
 * frees it only when it collects the Buffer, and a Buffer is too small an object to start a collection soon. So
 * the chunks of an upload piled up by the tens of MiB until their total started a full collection, which took
 * the service's RSS up by 60-70 MiB for good (the allocator kept the pages) and cost it 2-4 full collections
 * (60-120 ms of marking each) per 100 MiB (docs/performance.md#source-uploads). Detaching the chunk's
 * ArrayBuffer (`transfer(0)`) frees its memory at once, and the next chunk's copy reuses it. Only a Buffer that
 * spans the whole of its ArrayBuffer is released: one that shares it (Node's pool of small Buffers) is left to
 * the collector. The chunk is empty afterwards; nothing reads it once written.
 */
function release(chunk: Buffer): void {
  const memory = chunk.buffer;
  if (!(memory instanceof ArrayBuffer) || chunk.byteOffset !== 0 || chunk.byteLength !== memory.byteLength) return;
  try {
    memory.transfer(0);
  } catch {
    // Not detachable (memory Node keeps for itself): the collector frees it.
  }
}
