// Yoga's side of response compression (runner/response-compression.ts decides the coding and compresses), for
// the answers of what the operation runner declines, and of the probes and pages.
import type { Plugin } from 'graphql-yoga';
import { isCompressible, type ResponseCompression } from '../runner/response-compression.ts';

export function useResponseCompression(compression: ResponseCompression): Plugin {
  const { minBytes } = compression;
  return {
    async onResponse({ request, response, setResponse, fetchAPI }) {
      const acceptEncoding = request.headers.get('accept-encoding');
      if (acceptEncoding === null || !isCompressible(response.headers.get('content-type'))) return;
      if (!response.headers.get('vary')?.toLowerCase().includes('accept-encoding')) response.headers.append('vary', 'Accept-Encoding');
      if (request.method === 'HEAD' || response.body === null || response.headers.has('content-encoding')) return;
      // Answers of either door say their length: a small one (most of what frontend apps get) is left as it is,
      // without reading and re-wrapping its body. An answer that does not say it is measured below.
      const declaredLength = response.headers.get('content-length');
      if (declaredLength !== null && Number(declaredLength) < minBytes) return;
      const encoding = compression.encodingFor(acceptEncoding);
      if (encoding === undefined) return;

      const init = { status: response.status, statusText: response.statusText, headers: response.headers };
      const body = new Uint8Array(await response.arrayBuffer());
      if (body.byteLength < minBytes) {
        setResponse(new fetchAPI.Response(body, init));
        return;
      }
      const sent = compression.compress(encoding, body);
      response.headers.set('content-encoding', encoding);
      response.headers.set('content-length', String(sent.byteLength));
      setResponse(new fetchAPI.Response(new Uint8Array(sent.buffer as ArrayBuffer, sent.byteOffset, sent.byteLength), init));
    },
  };
}
