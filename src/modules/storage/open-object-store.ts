// The object store the configuration asks for: an S3-compatible store with S3_BUCKET, else the built-in one in
// DATA_DIR/objects, whose URLs name this service (PUBLIC_URL, or the address it listens on).
import type { KeyObject } from 'node:crypto';
import path from 'node:path';
import type { Config } from '../../config.ts';
import { EmbeddedObjectStore } from './embedded-object-store.ts';
import type { ObjectStore } from './object-store.ts';
import { S3ObjectStore } from './s3-object-store.ts';
import { UrlSigner } from './url-signature.ts';

/** The built-in store's folder under DATA_DIR. */
export const OBJECTS_DIRECTORY = 'objects';

/** `secretsKeys`: the secrets keys, the current one first (the built-in store's URLs are signed with a key derived from them). */
export function openObjectStore(config: Pick<Config, 'objectStorage' | 'dataDir'>, secretsKeys: Iterable<KeyObject>, baseUrl: () => string): ObjectStore {
  if (config.objectStorage.kind === 's3') return new S3ObjectStore(config.objectStorage);
  return new EmbeddedObjectStore({ directory: path.join(config.dataDir, OBJECTS_DIRECTORY), signer: new UrlSigner(secretsKeys), baseUrl });
}

/** The origin a server listening on `host`:`port` is reached at from this machine (`0.0.0.0`: localhost). */
export function listeningOrigin(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}
