// What a browser's HTTP cache does for free, for a script on Node, whose fetch keeps no cache: it keeps the last
// answer to each GET that came with an ETag, asks again with If-None-Match, and reuses the kept body when the
// gateway answers 304 Not Modified. The gateway's `Cache-Control: private, no-cache` asks for exactly this:
// keep it for this user only, and revalidate before every use. So a kept body is shown only after the gateway
// has said it is still current; it is never a stale copy.

interface Kept {
  etag: string;
  body: string;
}

/** An answer as the caller sees it: a 304 comes back as the 200 it confirmed, with the kept body. */
export interface CachedAnswer {
  status: number;
  body: string;
}

export class RevalidatingCache {
  // Oldest use first (a Map keeps insertion order): the first key is the one to drop when full.
  readonly #kept = new Map<string, Kept>();
  readonly #maxEntries: number;
  /** Answers this cache reused after a 304 (not sent again), and answers that came in full. */
  notModified = 0;
  fetched = 0;

  constructor(maxEntries = 100) {
    this.#maxEntries = maxEntries;
  }

  async get(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<CachedAnswer> {
    // Keyed by the URL and every header this client sends, which include every one the answer's Vary names
    // (the key, the tenant, Accept): another key's answer is never reused.
    const key = JSON.stringify([url, Object.entries(headers).sort()]);
    const kept = this.#kept.get(key);
    const response = await fetch(url, { headers: kept ? { ...headers, 'if-none-match': kept.etag } : headers, signal });
    this.#kept.delete(key);
    if (response.status === 304 && kept) {
      this.notModified += 1;
      this.#kept.set(key, kept);
      return { status: 200, body: kept.body };
    }
    const body = await response.text();
    this.fetched += 1;
    const etag = response.headers.get('etag');
    if (response.status === 200 && etag && !/\bno-store\b/i.test(response.headers.get('cache-control') ?? '')) {
      this.#kept.set(key, { etag, body });
      if (this.#kept.size > this.#maxEntries) this.#kept.delete(this.#kept.keys().next().value!);
    }
    return { status: response.status, body };
  }
}
