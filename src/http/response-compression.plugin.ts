// Compressed responses, on both doors (GraphQL and REST, which answer through the same Yoga), for clients that
// ask with Accept-Encoding: zstd, br or gzip (zstd where Node's zlib has it). The compressing is done by
// @whatwg-node/server's useContentEncoding, the plugin of the server adapter Yoga is built on. On its own that
// plugin compresses every body whatever its size, in the first coding the client lists (q-values ignored),
// with zlib's default levels, sends no Vary, and answers 500 (a stack trace in the body) for a Response of
// another fetch implementation than its own (the REST door builds Node's). This plugin decides, and hands it
// only what it should compress:
// - which coding: negotiated with `negotiator` (q-values, `*`, `identity;q=0`); on a tie, ours (zstd, br, gzip);
// - at which level: compression-encoders.ts;
// - which bodies: JSON, HTML and plain text (the metrics) of at least `minBytes`. Scripts and stylesheets are
//   only served under /assets/, and are left alone: browsers keep them a year, and compressing GraphiQL's 5 MB
//   bundle on each request would cost 50 to 250 ms of CPU to anyone, without a key.
// A client that sends no Accept-Encoding gets exactly the answer it got without this plugin. Every other answer
// of those types says `Vary: Accept-Encoding`, compressed or not. (The uncompressed answer is acceptable to
// every client, so a cache that stored it without Vary would serve nobody wrongly.)
import Negotiator from 'negotiator';
import type { Plugin } from 'graphql-yoga';
import { getSupportedEncodings, useContentEncoding, type FetchAPI } from '@whatwg-node/server';
import type { Metrics } from '../observability/metrics.ts';
import { RESPONSE_ENCODINGS, withCompressionLevels, type ResponseEncoding } from './compression-encoders.ts';

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

const mediaTypeOf = (response: Response) => response.headers.get('content-type')?.split(';')[0]!.trim().toLowerCase();

export function useResponseCompression({ minBytes, metrics }: ResponseCompressionOptions): Plugin {
  // Only its response half: its request half would inflate compressed request bodies after the request
  // handler has checked their size against MAX_BODY_BYTES.
  const { onResponse: compress } = useContentEncoding();
  let leveled: { fetchAPI: FetchAPI; encodings: ResponseEncoding[] } | undefined;
  const setUp = (fetchAPI: FetchAPI) => (leveled ??= {
    fetchAPI: withCompressionLevels(fetchAPI),
    encodings: RESPONSE_ENCODINGS.filter((encoding) => (getSupportedEncodings(fetchAPI) as string[]).includes(encoding)),
  });

  return {
    async onResponse({ request, response, setResponse, fetchAPI, serverContext }) {
      const acceptEncoding = request.headers.get('accept-encoding');
      if (acceptEncoding === null || !COMPRESSIBLE_TYPES.has(mediaTypeOf(response) ?? '')) return;
      if (!response.headers.get('vary')?.toLowerCase().includes('accept-encoding')) response.headers.append('vary', 'Accept-Encoding');
      if (request.method === 'HEAD' || response.body === null || response.headers.has('content-encoding')) return;
      if (acceptEncoding.length > MAX_ACCEPT_ENCODING_LENGTH) return;
      // GraphQL answers say their length: a small one (most of what frontend apps get) is left as it is,
      // without reading and re-wrapping its body. REST answers do not, and are measured below.
      const declaredLength = response.headers.get('content-length');
      if (declaredLength !== null && Number(declaredLength) < minBytes) return;
      const { fetchAPI: leveledFetchAPI, encodings } = setUp(fetchAPI);
      const encoding = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }).encoding(encodings, { preferred: encodings });
      if (encoding === undefined) return;

      const init = { status: response.status, statusText: response.statusText, headers: response.headers };
      const body = new Uint8Array(await response.arrayBuffer());
      if (body.byteLength < minBytes) {
        setResponse(new fetchAPI.Response(body, init));
        return;
      }
      // The library picks the first coding of the request's Accept-Encoding that it supports: it is shown
      // only the negotiated one, and a Response of its own fetch API.
      let compressed: Response | undefined;
      await compress!({
        request: new fetchAPI.Request(request.url, { headers: { 'accept-encoding': encoding } }),
        response: new fetchAPI.Response(body, init),
        serverContext,
        fetchAPI: leveledFetchAPI,
        setResponse: (answer) => { compressed = answer; },
      });
      if (!compressed) throw new Error(`useContentEncoding did not compress a ${encoding} response`);
      // Read whole, to count it and to send its length: these bodies are single JSON or HTML documents.
      const sent = new Uint8Array(await compressed.arrayBuffer());
      metrics.bytesBeforeCompression.inc({ encoding }, body.byteLength);
      metrics.bytesAfterCompression.inc({ encoding }, sent.byteLength);
      compressed.headers.set('content-length', String(sent.byteLength));
      setResponse(new fetchAPI.Response(sent, { status: response.status, statusText: response.statusText, headers: compressed.headers }));
    },
  };
}
