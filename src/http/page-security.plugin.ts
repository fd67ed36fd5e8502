// Headers on every HTML page the service serves (GraphiQL, Swagger UI): a Content-Security-Policy under which
// the page loads nothing from another origin and runs no inline script, even if a value shown on it were
// crafted to inject one.
import type { Plugin } from 'graphql-yoga';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // The editors (Monaco in GraphiQL, Swagger UI's) add <style> elements as they render.
  "style-src 'self' 'unsafe-inline'",
  // Both stylesheets embed their fonts and icons as data: URLs.
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function usePageSecurity(): Plugin {
  return {
    onResponse({ response }) {
      if (!response.headers.get('content-type')?.startsWith('text/html')) return;
      response.headers.set('content-security-policy', CONTENT_SECURITY_POLICY);
      response.headers.set('x-content-type-options', 'nosniff');
      // The page names assets by content hash: always asked for again, so that an upgrade is seen at once.
      response.headers.set('cache-control', 'no-cache');
    },
  };
}
