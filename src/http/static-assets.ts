// The JavaScript, CSS and icons of the two pages for people (GraphiQL at /graphql, Swagger UI at /docs),
// served by the service itself from their npm packages: the pages work without internet (air-gapped clusters,
// laptops on planes, CI). Each asset's URL carries a hash of its content, so browsers may keep it forever
// and a new package version is a new URL.
import { createHash } from 'node:crypto';

export const ASSETS_PATH = '/assets/';

export interface StaticAsset {
  /** `/assets/<name>.<content hash>.<extension>` */
  path: string;
  contentType: string;
  body: Buffer;
}

/** One page's assets, read the first time the page or one of them is asked for. */
export type AssetLoader = () => Promise<Record<string, StaticAsset>>;

export function hashedAsset(name: string, extension: string, contentType: string, content: string | Buffer): StaticAsset {
  const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { path: `${ASSETS_PATH}${name}.${hash}.${extension}`, contentType, body };
}

/** Bundled files end with a comment naming their source map, which is not served (devtools would ask for it). */
export const withoutSourceMapComment = (code: string) => code.replace(/\n?\/[/*]# sourceMappingURL=\S+?(\s*\*\/)?\s*$/, '\n');

/** Loads once, however many callers ask (and again after a failure). */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => (loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  }));
}
