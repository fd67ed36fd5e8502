// Answers /assets/: the scripts, stylesheets and icons of GraphiQL and /docs (static-assets.ts), without
// authentication, cached by browsers for a year: their URLs change with their content.
import type { Plugin } from 'graphql-yoga';
import { scopeOfServerContext } from '../observability/request-scope.ts';
import { ASSETS_PATH, type AssetLoader, type StaticAsset } from './static-assets.ts';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const notFound = () => new Response(JSON.stringify({ detail: 'Not Found' }), { status: 404, headers: { 'content-type': 'application/json' } });

/** Answers GET and HEAD under /assets/ from `loaders`; any other path is left to the plugins after it. */
export function useStaticAssets(loaders: AssetLoader[]): Plugin {
  async function find(path: string): Promise<StaticAsset | undefined> {
    for (const load of loaders) {
      const found = Object.values(await load()).find((asset) => asset.path === path);
      if (found) return found;
    }
    return undefined;
  }

  return {
    async onRequest({ url, request, endResponse, serverContext }) {
      if (!url.pathname.startsWith(ASSETS_PATH)) return;
      scopeOfServerContext(serverContext).route = ASSETS_PATH;
      const asset = request.method === 'GET' || request.method === 'HEAD' ? await find(url.pathname) : undefined;
      if (!asset) return endResponse(notFound());
      const headers = { 'content-type': asset.contentType, 'content-length': String(asset.body.length), 'cache-control': IMMUTABLE, 'x-content-type-options': 'nosniff' };
      endResponse(new Response(request.method === 'HEAD' ? null : new Uint8Array(asset.body), { headers }));
    },
  };
}
