// Compressed responses, on both doors (the operation runner's answers, and Yoga's through
// http/response-compression.plugin.ts), for clients that ask with Accept-Encoding: zstd, br or gzip (zstd where
// Node's zlib has it). This decides:
// - which coding: negotiated with `negotiator` (q-values, `*`, `identity;q=0`); on a tie, ours (zstd, br, gzip);
// - which bodies: JSON, HTML and plain text (the metrics) of at least `minBytes`. Scripts and stylesheets are
//   only served under /assets/, and are left alone: browsers keep them a year, and compressing GraphiQL's 5 MB
//   bundle on each request would cost 50 to 250 ms of CPU to anyone, without a key;
// - and compresses the body whole, in one zlib call, at the level compression-encoders.ts sets. It used to hand
//   the body to @whatwg-node/server's useContentEncoding, whose zlib stream behind a TransformStream cost more
//   CPU than a frontend's 20-row page itself (docs/decisions.md#compression).
// A client that sends no Accept-Encoding gets exactly the answer it got without this plugin. Every other answer
// of those types says `Vary: Accept-Encoding`, compressed or not. (The uncompressed answer is acceptable to
// every client, so a cache that stored it without Vary would serve nobody wrongly.)
import Negotiator from 'negotiator';
import type { Metrics } from '../observability/metrics.ts';
import { compressBody, RESPONSE_ENCODINGS, type ResponseEncoding } from './compression-encoders.ts';

export interface ResponseCompressionOptions {
  /** Bodies smaller than this are sent as they are. */
  minBytes: number;
  metrics: Metrics;
}

/**
 * Browsers send about 25 characters (`gzip, deflate, br, zstd`). Negotiating a header of thousands of entries
 * costs milliseconds of CPU, and anyone can send one without a key: a longer header is answered uncompressed.
 */
const MAX_ACCEPT_ENCODING_LENGTH = 256;

const COMPRESSIBLE_TYPES = new Set(['application/json', 'application/graphql-response+json', 'text/html', 'text/plain']);

/** A Content-Type of one of COMPRESSIBLE_TYPES (its parameters, such as the charset, aside). */
export const isCompressible = (contentType: string | null | undefined) =>
  contentType != null && COMPRESSIBLE_TYPES.has(contentType.split(';')[0]!.trim().toLowerCase());

/** Picks the coding a client asked for and compresses whole bodies: this plugin's rules, for Yoga's answers and the operation runner's. */
export class ResponseCompression {
  readonly minBytes: number;
  private readonly metrics: Metrics;

  constructor({ minBytes, metrics }: ResponseCompressionOptions) {
    this.minBytes = minBytes;
    this.metrics = metrics;
  }

  /** One of RESPONSE_ENCODINGS, or undefined when the client accepts none of them (or sends an overlong header). */
  encodingFor(acceptEncoding: string): ResponseEncoding | undefined {
    if (acceptEncoding.length > MAX_ACCEPT_ENCODING_LENGTH) return undefined;
    return new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }).encoding(RESPONSE_ENCODINGS, { preferred: RESPONSE_ENCODINGS }) as ResponseEncoding | undefined;
  }

  /** `body` in `encoding`, counted. */
  compress(encoding: ResponseEncoding, body: Uint8Array): Buffer {
    const sent = compressBody(encoding, body);
    this.metrics.bytesBeforeCompression.inc({ encoding }, body.byteLength);
    this.metrics.bytesAfterCompression.inc({ encoding }, sent.byteLength);
    return sent;
  }

  /**
   * For an answer given as plain headers (lower-case names) and a whole body: adds `Vary` and, when the body is
   * large enough and a coding is acceptable, returns it compressed with its headers set; otherwise undefined.
   * The answer to a HEAD (`head`) says Vary, as its GET's would, and is not compressed.
   */
  apply(acceptEncoding: string, headers: Record<string, string>, body: string | Uint8Array, head = false): Buffer | undefined {
    if (!isCompressible(headers['content-type'])) return undefined;
    if (!headers.vary?.toLowerCase().includes('accept-encoding')) headers.vary = headers.vary ? `${headers.vary}, Accept-Encoding` : 'Accept-Encoding';
    if (head) return undefined;
    // Measured before it is encoded: most answers are small, and stay the string they are.
    if (headers['content-encoding'] !== undefined || (typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength) < this.minBytes) return undefined;
    const encoding = this.encodingFor(acceptEncoding);
    if (encoding === undefined) return undefined;
    const sent = this.compress(encoding, typeof body === 'string' ? Buffer.from(body) : body);
    headers['content-encoding'] = encoding;
    headers['content-length'] = String(sent.byteLength);
    return sent;
  }
}
