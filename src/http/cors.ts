// CORS for browser apps on other origins (CORS_ORIGINS). None configured: no CORS at all, so a browser page
// from another origin cannot read any answer, and OPTIONS is answered like any other unsupported method.
import type { CORSOptions } from '@whatwg-node/server';

export function corsOptions(origins: string[]): CORSOptions {
  if (origins.length === 0) return false;
  return {
    origin: origins,
    // The REST writes too: PATCH and DELETE, their preconditions and idempotency keys, and what they answer with;
    // and a read's If-None-Match, for an app that revalidates itself (a browser's own cache needs no permission).
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ['content-type', 'accept', 'x-api-key', 'authorization', 'x-tenant-id', 'x-request-id', 'if-match', 'if-none-match', 'idempotency-key'],
    exposedHeaders: ['x-request-id', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'etag', 'location', 'idempotent-replayed'],
    // Keys travel in headers, never in cookies: credentialed requests are not needed.
    credentials: false,
    maxAge: 600,
  };
}
