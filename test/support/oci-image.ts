// A small container image made in the test, as an OCI image layout directory skopeo can copy from: one layer
// (a gzipped tarball of one file), its config and its manifest, each a blob named by its SHA-256.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as tar from 'tar';

const sha256 = (bytes: Buffer | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

export interface OciImage {
  /** The layout directory (`oci:<dir>:latest`). */
  dir: string;
  manifestDigest: string;
  /** The layer's and the config's sizes together: what a data plane reports as the image's size. */
  size: number;
}

async function writeBlob(dir: string, bytes: Buffer | string): Promise<{ digest: string; size: number }> {
  const digest = sha256(bytes);
  await fs.writeFile(path.join(dir, 'blobs', 'sha256', digest.slice('sha256:'.length)), bytes);
  return { digest, size: Buffer.byteLength(bytes) };
}

/** An image whose one file says `greeting`: different greetings make different images. */
export async function makeOciImage(dir: string, greeting: string): Promise<OciImage> {
  const content = path.join(dir, 'content');
  await fs.mkdir(content, { recursive: true });
  await fs.mkdir(path.join(dir, 'blobs', 'sha256'), { recursive: true });
  await fs.writeFile(path.join(content, 'hello.txt'), `${greeting}\n`);
  const layerFile = path.join(dir, 'layer.tar.gz');
  await tar.create({ gzip: true, file: layerFile, cwd: content, portable: true, mtime: new Date(0) }, ['hello.txt']);
  const layerBytes = await fs.readFile(layerFile);
  await fs.rm(layerFile);
  const layer = await writeBlob(dir, layerBytes);
  const config = await writeBlob(dir, JSON.stringify({
    architecture: 'amd64', os: 'linux', config: { Cmd: ['/hello.txt'] },
    rootfs: { type: 'layers', diff_ids: [sha256(gunzipSync(layerBytes))] },
  }));
  const manifest = await writeBlob(dir, JSON.stringify({
    schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', ...layer }],
  }));
  await fs.writeFile(path.join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await fs.writeFile(path.join(dir, 'index.json'), JSON.stringify({
    schemaVersion: 2,
    manifests: [{ mediaType: 'application/vnd.oci.image.manifest.v1+json', ...manifest, annotations: { 'org.opencontainers.image.ref.name': 'latest' } }],
  }));
  return { dir, manifestDigest: manifest.digest, size: layer.size + config.size };
}
