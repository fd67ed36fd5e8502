// The object store of source archives (src/modules/storage/object-store.ts), one suite run against both
// implementations: the built-in store (files in a folder, URLs served by this service's request handler for
// them) and the S3 store against a real S3-compatible server (s3rver) that the test starts. Uploads and
// downloads go through the signed URLs with a plain HTTP client, without a key, as the CLI and a data plane do.
// Below it, what only the built-in store decides itself (S3 enforces its own signatures): altered URLs, paths
// outside the folder, the size limit while streaming, uploads cut off midway.
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createSecretKey, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedObjectStore } from '../src/modules/storage/embedded-object-store.ts';
import { EmbeddedObjectRequests } from '../src/modules/storage/embedded-object-requests.ts';
import { S3ObjectStore } from '../src/modules/storage/s3-object-store.ts';
import { UrlSigner } from '../src/modules/storage/url-signature.ts';
import type { ObjectStore } from '../src/modules/storage/object-store.ts';
import { startS3Server, type S3Server } from './support/s3-server.ts';
import { archiveOf, chunks, cliPut, cutOffPut, expectDetail, objectRequest } from './support/object-http.ts';

const MAX = 1024 * 1024;
const MINUTE = 60_000;
/** A grant from now on, `ms` long. */
const grant = (ms = 10 * MINUTE, now = Date.now()) => ({ issuedAt: new Date(now), expiresAt: new Date(now + ms), maxBytes: MAX });

interface StoreUnderTest {
  store: ObjectStore;
  close(): Promise<void>;
}

/** The built-in store behind a server that serves only its URLs (the service puts them before everything else). */
async function embedded(key = randomBytes(32), previous: Buffer[] = []): Promise<StoreUnderTest & { store: EmbeddedObjectStore; directory: string; server: Server }> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'objects-'));
  let base = '';
  const store = new EmbeddedObjectStore({ directory, signer: new UrlSigner([key, ...previous].map((k) => createSecretKey(k))), baseUrl: () => base });
  const requests = new EmbeddedObjectRequests(store);
  const server = createServer((req, res) => void requests.serve(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    store, directory, server,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

let s3: S3Server;
const implementations: [string, () => Promise<StoreUnderTest>][] = [
  ['the built-in store', () => embedded()],
  ['the S3 store (s3rver)', async () => {
    const store = new S3ObjectStore(s3.settings);
    return { store, close: () => store.close() };
  }],
];

beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(() => s3?.close());

let n = 0;
const newPath = () => `sources/tenant-${process.pid}/deployment/${++n}-${Date.now()}.tar.gz`;

describe.each(implementations)('%s', (_, open) => {
  let subject: StoreUnderTest;
  beforeAll(async () => {
    subject = await open();
  });
  afterAll(() => subject?.close());

  it('stores an archive PUT to its upload URL without a key, with the CLI\'s headers, and serves it at its download URL', async () => {
    const { store } = subject;
    const objectPath = newPath();
    const archive = archiveOf('one');
    const uploadUrl = await store.uploadUrl(objectPath, grant());
    expect(new URL(uploadUrl).protocol).toBe('http:');
    const put = await cliPut(uploadUrl, archive);
    // Answered directly: urllib follows no redirect for a PUT.
    expect(put.status).toBe(200);
    expect(await store.sizeOf(objectPath)).toBe(archive.length);
    const get = await objectRequest('GET', await store.downloadUrl(objectPath, grant()));
    expect({ status: get.status, same: get.body.equals(archive) }).toEqual({ status: 200, same: true });
  });

  it('knows no object that was never uploaded, and removes one (removing nothing is fine)', async () => {
    const { store } = subject;
    const objectPath = newPath();
    expect(await store.sizeOf(objectPath)).toBeUndefined();
    await store.delete(objectPath);
    expect((await cliPut(await store.uploadUrl(objectPath, grant()), archiveOf('two'))).status).toBe(200);
    expect(await store.sizeOf(objectPath)).toBeGreaterThan(0);
    await store.delete(objectPath);
    expect(await store.sizeOf(objectPath)).toBeUndefined();
    expect((await objectRequest('GET', await store.downloadUrl(objectPath, grant()))).status).toBe(404);
  });

  it('replaces the object when its URL is used again, as S3 does', async () => {
    const { store } = subject;
    const objectPath = newPath();
    const url = await store.uploadUrl(objectPath, grant());
    await cliPut(url, archiveOf('first'));
    const second = archiveOf('second, longer than the first');
    expect((await cliPut(url, second)).status).toBe(200);
    expect((await objectRequest('GET', await store.downloadUrl(objectPath, grant()))).body.equals(second)).toBe(true);
  });

  it('refuses an expired upload URL (403, nothing stored) and an expired download URL', async () => {
    const { store } = subject;
    const objectPath = newPath();
    const now = Date.now();
    // Signed two minutes ago, for one minute.
    const expired = await store.uploadUrl(objectPath, grant(MINUTE, now - 2 * MINUTE));
    expect((await cliPut(expired, archiveOf('late'))).status).toBe(403);
    expect(await store.sizeOf(objectPath)).toBeUndefined();
    await cliPut(await store.uploadUrl(objectPath, grant()), archiveOf('in time'));
    expect((await objectRequest('GET', await store.downloadUrl(objectPath, grant(MINUTE, now - 2 * MINUTE)))).status).toBe(403);
  });

  it('makes the same URL for the same grant (a read showing one keeps its entity tag)', async () => {
    const { store } = subject;
    const objectPath = newPath();
    const sameGrant = grant(30 * MINUTE, Math.floor(Date.now() / 1000) * 1000);
    expect(await store.downloadUrl(objectPath, sameGrant)).toBe(await store.downloadUrl(objectPath, sameGrant));
  });
});

describe('the built-in store\'s own checks', () => {
  let subject: Awaited<ReturnType<typeof embedded>>;
  beforeAll(async () => {
    subject = await embedded();
  });
  afterAll(() => subject?.close());

  /** The upload URL with one query parameter changed (or removed). */
  const altered = (url: string, name: string, value: string | null) => {
    const changed = new URL(url);
    if (value === null) changed.searchParams.delete(name);
    else changed.searchParams.set(name, value);
    return changed.toString();
  };

  it('refuses an upload URL whose signature, path, expiry or size limit was altered: 403 with a JSON detail, nothing stored', async () => {
    const objectPath = newPath();
    const url = await subject.store.uploadUrl(objectPath, grant());
    const signature = new URL(url).searchParams.get('signature')!;
    const otherPath = newPath();
    const attempts = {
      signature: altered(url, 'signature', `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'AB' : 'AA'}`),
      'no signature': altered(url, 'signature', null),
      'signature of another length': altered(url, 'signature', signature.slice(0, 20)),
      path: url.replace(objectPath, otherPath),
      expiry: altered(url, 'expires', String(Number(new URL(url).searchParams.get('expires')) + 3600)),
      'size limit': altered(url, 'max_bytes', String(MAX * 100)),
      'a GET signature used for a PUT': await subject.store.downloadUrl(objectPath, grant()),
    };
    for (const [what, attempt] of Object.entries(attempts)) {
      const answer = await cliPut(attempt, archiveOf(what));
      expectDetail(answer, 403, /^The signature of this URL does not match it/);
    }
    expect(await subject.store.sizeOf(objectPath)).toBeUndefined();
    expect(await subject.store.sizeOf(otherPath)).toBeUndefined();
    expect((await cliPut(url, archiveOf('the real one'))).status).toBe(200);
  });

  it('says when a URL expired', async () => {
    const url = await subject.store.uploadUrl(newPath(), grant(MINUTE, Date.now() - 2 * MINUTE));
    expectDetail(await cliPut(url, archiveOf('late')), 403, /^This URL expired at \d{4}-\d\d-\d\dT/);
  });

  it('refuses a download URL altered to another object, and one of another secrets key', async () => {
    const objectPath = newPath();
    await cliPut(await subject.store.uploadUrl(objectPath, grant()), archiveOf('mine'));
    const url = await subject.store.downloadUrl(objectPath, grant());
    const other = newPath();
    await cliPut(await subject.store.uploadUrl(other, grant()), archiveOf('other'));
    expectDetail(await objectRequest('GET', url.replace(objectPath, other)), 403, /^The signature of this URL does not match it/);
    const stranger = await embedded();
    try {
      // The same path, the same expiry, signed by a gateway with another SECRETS_KEY.
      const foreign = new URL(await stranger.store.downloadUrl(objectPath, grant()));
      expectDetail(await objectRequest('GET', url.split('?')[0] + foreign.search), 403, /^The signature of this URL does not match it/);
    } finally {
      await stranger.close();
    }
  });

  it('verifies URLs of every gateway with the same SECRETS_KEY, and during a rotation those signed under the previous key', async () => {
    const key = randomBytes(32);
    const next = randomBytes(32);
    const first = await embedded(key);
    const rotated = await embedded(next, [key]);
    try {
      const objectPath = newPath();
      const signedByFirst = new URL(await first.store.uploadUrl(objectPath, grant()));
      const base = new URL(await rotated.store.uploadUrl(objectPath, grant()));
      expect((await cliPut(`${base.origin}${base.pathname}${signedByFirst.search}`, archiveOf('rotated'))).status).toBe(200);
      expect(await rotated.store.sizeOf(objectPath)).toBeGreaterThan(0);
    } finally {
      await first.close();
      await rotated.close();
    }
  });

  it('never looks at a path outside its folder: `..`, encoded characters and empty segments are 404, even signed', async () => {
    const outside = path.join(subject.directory, '..', `escaped-${process.pid}.tar.gz`);
    for (const objectPath of [`sources/../../escaped-${process.pid}.tar.gz`, 'sources/%2e%2e/x.tar.gz', 'sources//x.tar.gz', '.incoming/x.part']) {
      const expires = Math.floor(Date.now() / 1000) + 600;
      const signature = subject.store.signer.sign({ method: 'PUT', path: objectPath, expires, maxBytes: MAX });
      const base = new URL(await subject.store.uploadUrl('x', grant())).origin;
      // Sent as written (node:http does not normalise the path, as a browser or fetch would).
      const answer = await objectRequest('PUT', `${base}/objects/${objectPath}?expires=${expires}&max_bytes=${MAX}&signature=${signature}`, archiveOf('escape'), { 'content-type': 'application/gzip' });
      expect(answer.status, objectPath).toBe(404);
      expectDetail(answer, 404, 'Not Found');
    }
    expect(existsSync(outside)).toBe(false);
    await expect(subject.store.uploadUrl('../x', grant())).rejects.toThrow(/not an object path/);
  });

  it('refuses an archive over the limit at once when its Content-Length says so (413, before a byte is read)', async () => {
    const objectPath = newPath();
    const url = await subject.store.uploadUrl(objectPath, { ...grant(), maxBytes: 1000 });
    // Only the headers are sent: the answer cannot wait for the body.
    const answer = await objectRequest('PUT', url, Buffer.alloc(0), { 'content-length': '1001', 'content-type': 'application/gzip' });
    expectDetail(answer, 413, 'The archive is larger than the limit of 1000 bytes.');
    expect(answer.headers.connection).toBe('close');
    expect(await subject.store.sizeOf(objectPath)).toBeUndefined();
  });

  it('refuses a chunked archive without a length while it streams, once it passes the limit: 413, nothing stored, nothing left over', async () => {
    const objectPath = newPath();
    const url = await subject.store.uploadUrl(objectPath, { ...grant(), maxBytes: 256 * 1024 });
    // 64 MiB offered, 64 KiB at a time: refused after the fifth chunk, long before the end.
    const answer = await objectRequest('PUT', url, chunks(1024), { 'content-type': 'application/gzip' });
    expectDetail(answer, 413, `The archive is larger than the limit of ${256 * 1024} bytes.`);
    expect(await subject.store.sizeOf(objectPath)).toBeUndefined();
    expect(readdirSync(path.join(subject.directory, '.incoming'))).toEqual([]);
    // Exactly the limit is accepted.
    expect((await objectRequest('PUT', url, chunks(4), { 'content-type': 'application/gzip' })).status).toBe(200);
    expect(await subject.store.sizeOf(objectPath)).toBe(256 * 1024);
  });

  it('gives each chunk\'s memory back once it is written: 64 MiB streamed in, the process\'s ArrayBuffers grow by less than 16 MiB', async () => {
    // Node's HTTP parser copies each piece of a body into an ArrayBuffer of its own; left to the garbage
    // collector, they pile up by tens of MiB before one runs (docs/performance.md#source-uploads). The client
    // here sends one Buffer over and over, so what grows is the server's side.
    const objectPath = newPath();
    const url = await subject.store.uploadUrl(objectPath, { ...grant(), maxBytes: 64 * MAX });
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().arrayBuffers); }, 2);
    try {
      const answer = await objectRequest('PUT', url, chunks(1024), { 'content-type': 'application/gzip', 'content-length': String(64 * MAX) });
      expect(answer.status).toBe(200);
    } finally {
      clearInterval(sampler);
    }
    expect(await subject.store.sizeOf(objectPath)).toBe(64 * MAX);
    expect((peak - before) / MAX).toBeLessThan(16);
    await subject.store.delete(objectPath);
  });

  it('leaves nothing of an upload cut off midway: no object, no temporary file', async () => {
    const objectPath = newPath();
    const url = await subject.store.uploadUrl(objectPath, grant());
    await cutOffPut(url, 500_000, 200_000);
    await expect.poll(() => readdirSync(path.join(subject.directory, '.incoming')), { timeout: 5000 }).toEqual([]);
    expect(await subject.store.sizeOf(objectPath)).toBeUndefined();
  });

  it('answers only GET and PUT', async () => {
    const url = await subject.store.uploadUrl(newPath(), grant());
    const answer = await objectRequest('DELETE', url);
    expectDetail(answer, 405, 'Method Not Allowed');
    expect(answer.headers.allow).toBe('GET, PUT');
  });
});
