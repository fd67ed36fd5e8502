// Subscription answers are event streams (Server-Sent Events) that stay open. Yoga writes each event as it
// happens and a heartbeat comment (`:`) every 12 seconds so that idle connections are not timed out; this
// tells nginx-style proxies not to buffer them either (X-Accel-Buffering). Compression leaves them alone
// (response-compression.plugin.ts compresses only whole JSON, HTML and text answers).
import type { Plugin } from 'graphql-yoga';

export function useEventStreams(): Plugin {
  return {
    onResponse({ response }) {
      if (response.headers.get('content-type')?.startsWith('text/event-stream')) response.headers.set('x-accel-buffering', 'no');
    },
  };
}
