// An S3-compatible object store (AWS S3, MinIO, Ceph, R2, …) as the ObjectStore (object-store.ts): the URLs it
// hands out are the store's own presigned URLs (SigV4, AWS SDK's presigner), so the bytes go between the client
// and the store and never through this service; the service only asks HeadObject and sends DeleteObject.
// A presigned PUT cannot bound the body's size (the CLI's archive size is not known when the URL is made): the
// size is checked when a PATCH names the object (source-archives.ts).
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Settings } from '../../config.ts';
import type { ObjectStore, UploadGrant, UrlGrant } from './object-store.ts';

const lifetime = ({ issuedAt, expiresAt }: UrlGrant) => Math.max(1, Math.round((expiresAt.getTime() - issuedAt.getTime()) / 1000));

export class S3ObjectStore implements ObjectStore {
  readonly kind = 's3';
  readonly #client: S3Client;
  readonly #bucket: string;

  constructor(settings: S3Settings) {
    this.#bucket = settings.bucket;
    this.#client = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      // Checksums only where S3 requires them: a checksum in a presigned PUT would bind the URL to one body,
      // and some S3-compatible stores refuse the newer checksum headers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /** The client, for the tests' set-up (a bucket to create). */
  get client(): S3Client {
    return this.#client;
  }

  uploadUrl(path: string, grant: UploadGrant): Promise<string> {
    // Only `host` is signed: the CLI's Content-Type and X-Goog-Content-Length-Range headers pass unsigned.
    return getSignedUrl(this.#client, new PutObjectCommand({ Bucket: this.#bucket, Key: path }), { expiresIn: lifetime(grant), signingDate: grant.issuedAt });
  }

  downloadUrl(path: string, grant: UrlGrant): Promise<string> {
    return getSignedUrl(this.#client, new GetObjectCommand({ Bucket: this.#bucket, Key: path }), { expiresIn: lifetime(grant), signingDate: grant.issuedAt });
  }

  async sizeOf(path: string): Promise<number | undefined> {
    try {
      const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: path }));
      return head.ContentLength ?? 0;
    } catch (error) {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return undefined;
      throw error;
    }
  }

  async delete(path: string): Promise<void> {
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: path }));
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }
}
