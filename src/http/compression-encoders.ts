// The codings of compressed responses, and the zlib levels they run at, chosen by measurement on the full REST
// page (docs/performance.md#compression). @whatwg-node/server's CompressionStream makes its zlib streams with
// Node's defaults, and brotli's default is quality 11: about half a second of CPU for one page of 100 here. This
// one makes the same streams, wrapped the same way (the fetch API's TransformStream around a zlib Transform),
// at these levels.
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import type { FetchAPI } from '@whatwg-node/server';

/** In the order this service prefers among codings a client accepts equally. */
export const RESPONSE_ENCODINGS = ['zstd', 'br', 'gzip'] as const;
export type ResponseEncoding = (typeof RESPONSE_ENCODINGS)[number];

export const COMPRESSION_LEVELS: Record<ResponseEncoding, number> = { zstd: 3, br: 4, gzip: 6 };

function encoder(encoding: ResponseEncoding): Transform {
  const level = COMPRESSION_LEVELS[encoding];
  switch (encoding) {
    case 'gzip': return zlib.createGzip({ level });
    case 'br': return zlib.createBrotliCompress({
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: level, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT },
    });
    case 'zstd': return zlib.createZstdCompress({ params: { [zlib.constants.ZSTD_c_compressionLevel]: level } });
  }
}

/** `fetchAPI` with a CompressionStream at COMPRESSION_LEVELS. */
export function withCompressionLevels(fetchAPI: FetchAPI): FetchAPI {
  // @whatwg-node/node-fetch's TransformStream takes a Node Transform, as its own CompressionStream does.
  const TransformStream = fetchAPI.TransformStream as unknown as new (transform: Transform) => object;
  class LeveledCompressionStream extends TransformStream {
    constructor(format: string) {
      super(encoder(format as ResponseEncoding));
    }
  }
  return { ...fetchAPI, CompressionStream: LeveledCompressionStream as unknown as FetchAPI['CompressionStream'] };
}
