// Where source archives are kept (docs/decisions.md#source-archives): one small interface, with the built-in
// store (embedded-object-store.ts: files under DATA_DIR/objects, served by this service at its own address) and
// an S3-compatible one (s3-object-store.ts) beside each other. Clients never send the bytes through the API:
// they get a signed, expiring URL for one PUT or GET of one object, and the service only asks whether an object
// is there, how large it is, and removes it. test/object-store.test.ts runs one suite against both.

/** What a signed URL allows, and until when. */
export interface UrlGrant {
  /** When it was signed: URLs signed in the same instant for the same grant are the same (entity tags rely on it). */
  issuedAt: Date;
  expiresAt: Date;
}

export interface UploadGrant extends UrlGrant {
  /** The largest body the PUT may carry (the built-in store refuses more while it streams; S3 cannot: the check is after). */
  maxBytes: number;
}

export interface ObjectStore {
  /** `embedded` or `s3`, for logs and the start-up line. */
  readonly kind: string;
  /** An absolute URL that stores the object at `path` with one PUT of its bytes, without an API key. */
  uploadUrl(path: string, grant: UploadGrant): Promise<string>;
  /** An absolute URL that reads the object at `path` with one GET, without an API key. */
  downloadUrl(path: string, grant: UrlGrant): Promise<string>;
  /** The object's size in bytes; undefined when there is none (a half-sent upload never is one). */
  sizeOf(path: string): Promise<number | undefined>;
  /** Removes the object; nothing happens when there is none. */
  delete(path: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * An object path this service would issue or store: `/`-separated segments of letters, digits, `.`, `_` and
 * `-`, each starting with a letter or digit (so no `.`, `..` or empty segment, no leading `/`), at most 512
 * characters. Anything else is never looked up, whatever a signature says.
 */
const OBJECT_PATH = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;
export const MAX_OBJECT_PATH = 512;

export const isObjectPath = (path: string): boolean => path.length <= MAX_OBJECT_PATH && OBJECT_PATH.test(path);
