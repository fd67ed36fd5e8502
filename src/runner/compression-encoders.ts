// The codings of compressed responses, the zlib levels they run at (chosen by measurement on the full REST
// page, docs/performance.md#compression), and the compressing itself.
//
// A response is compressed whole, in one call of Node's zlib, on the thread that serves it. The body is
// already whole when it is compressed (it is read to decide and to count it), and one call costs a fraction of
// a zlib stream's: a stream allocates its coder's state and hands the work to libuv's thread pool and back. A
// light page (1.9 KB) costs 20-40 µs this way against 120-180 µs as a stream, and a stream behind the fetch
// API's TransformStream (@whatwg-node/server's useContentEncoding) cost a frontend's 20-row page about 470 µs
// of CPU, more than the page itself (docs/performance.md#compression).
import zlib from 'node:zlib';

/** In the order this service prefers among codings a client accepts equally; zstd where Node's zlib has it. */
export const RESPONSE_ENCODINGS = (['zstd', 'br', 'gzip'] as const).filter((encoding) => encoding !== 'zstd' || typeof zlib.zstdCompressSync === 'function');
export type ResponseEncoding = 'zstd' | 'br' | 'gzip';

export const COMPRESSION_LEVELS: Record<ResponseEncoding, number> = { zstd: 3, br: 4, gzip: 6 };

/** `body` compressed in `encoding`, at its level. */
export function compressBody(encoding: ResponseEncoding, body: Uint8Array): Buffer {
  const level = COMPRESSION_LEVELS[encoding];
  switch (encoding) {
    case 'gzip': return zlib.gzipSync(body, { level });
    case 'br': return zlib.brotliCompressSync(body, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: level,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        // The whole input is known: brotli sizes its window and buffers for it rather than for 4 MB.
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
      },
    });
    case 'zstd': return zlib.zstdCompressSync(body, { pledgedSrcSize: body.byteLength, params: { [zlib.constants.ZSTD_c_compressionLevel]: level } });
  }
}
