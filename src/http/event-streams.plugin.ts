// Subscription answers are event streams (Server-Sent Events) that stay open. Yoga writes each event as it
// happens and a heartbeat comment (`:`) every 12 seconds so that idle connections are not timed out; this
// tells nginx-style proxies not to buffer them either (X-Accel-Buffering). Compression leaves them alone
// (response-compression.plugin.ts compresses only whole JSON, HTML and text answers).
//
// A subscription asked for with an Accept header that allows no event stream (`application/json`) has been
// subscribed by the time Yoga finds no way to answer it: Yoga would answer an empty 406 and leave the
// subscription open, counting against its key's limit for good. It is closed here, and the 406 says why.
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

const NOT_ACCEPTABLE = {
  errors: [{
    message: 'A subscription is answered as a stream of Server-Sent Events: send `Accept: text/event-stream`.',
    extensions: { code: 'NOT_ACCEPTABLE' },
  }],
};

export function useEventStreams(): Plugin {
  return {
    onResultProcess({ result, resultProcessor, setResultProcessor }) {
      if (resultProcessor || !isAsyncIterable(result)) return;
      setResultProcessor(async (stream, fetchAPI) => {
        if (isAsyncIterable(stream)) await stream[Symbol.asyncIterator]().return?.();
        return new fetchAPI.Response(JSON.stringify(NOT_ACCEPTABLE), {
          status: 406,
          headers: { 'content-type': 'application/json; charset=utf-8', accept: 'text/event-stream' },
        });
      }, 'application/json');
    },
    onResponse({ response }) {
      if (response.headers.get('content-type')?.startsWith('text/event-stream')) response.headers.set('x-accel-buffering', 'no');
    },
  };
}
