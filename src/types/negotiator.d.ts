// negotiator 1.x: the `preferred` option (the server's order among codings the client weighs equally) is newer
// than @types/negotiator (0.6); only what this service uses is declared.
declare module 'negotiator' {
  interface EncodingOptions {
    preferred?: readonly string[];
  }

  class Negotiator {
    constructor(request: { headers: Record<string, string | undefined> });
    /** The coding of `available` the client accepts most (q-values, `*`, `identity;q=0`), or undefined for none. */
    encoding(available: readonly string[], options?: EncodingOptions): string | undefined;
  }

  export = Negotiator;
}
