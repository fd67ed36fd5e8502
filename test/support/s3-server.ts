// A real S3-compatible server for the tests of the S3 object store: s3rver, in this process, on a free port, with
// its files in a temporary folder. It answers the AWS SDK's requests and presigned URLs as S3 does, expiry
// included; it does not verify SigV4 signatures (S3 does: what a signature covers is S3's to enforce).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { S3Settings } from '../../src/config.ts';

export interface S3Server {
  settings: S3Settings;
  close(): Promise<void>;
}

export const TEST_BUCKET = 'sources';

export async function startS3Server(): Promise<S3Server> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: TEST_BUCKET }] });
  const { port } = await server.run();
  return {
    // s3rver's own credentials (any others are refused as an unknown access key).
    settings: { endpoint: `http://127.0.0.1:${port}`, bucket: TEST_BUCKET, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
