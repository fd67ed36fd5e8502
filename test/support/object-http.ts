// A plain HTTP client for signed object URLs, as the maker's CLI's urllib uses them: no API key, no redirect
// followed (urllib follows none for a PUT), the CLI's headers on an upload. Also the uploads a client can
// botch: a body cut off midway, a body streamed chunked without a length.
import { request, type IncomingHttpHeaders } from 'node:http';
import { gzipSync } from 'node:zlib';
import { expect } from 'vitest';

export interface ObjectAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** The headers the CLI sends with its archive (shared/spec/cli-deploy-flow.md, step 5). */
export const cliUploadHeaders = (length: number) => ({
  'content-type': 'application/gzip', 'content-length': String(length), 'x-goog-content-length-range': '0,209715200',
});

/** A small .tar.gz-like archive whose bytes say `name`. */
export const archiveOf = (name: string) => gzipSync(Buffer.from(`project ${name}\n${'x'.repeat(1000)}`));

/**
 * One request to `url`. `body`: bytes (sent with their Content-Length unless headers say otherwise), or chunks
 * streamed with Transfer-Encoding: chunked.
 */
export function objectRequest(method: string, url: string, body?: Buffer | Iterable<Buffer>, headers: Record<string, string> = {}): Promise<ObjectAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    // The path as written: URL would resolve `..` segments, which a raw client may send.
    const client = request({ method, host: target.hostname, port: target.port, path: url.slice(target.origin.length), headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const all = Buffer.concat(chunks);
        resolve({ status: res.statusCode!, headers: res.headers, body: all, text: all.toString('utf8') });
      });
      res.on('error', reject);
    });
    // The server may answer (413) and close before the whole body is written: the answer is what counts.
    client.on('error', reject);
    if (body === undefined) client.end();
    else if (Buffer.isBuffer(body)) client.end(body);
    else {
      (async () => {
        for (const chunk of body) {
          if (client.destroyed) return;
          if (!client.write(chunk)) await new Promise((done) => client.once('drain', done));
        }
        client.end();
      })().catch(reject);
    }
  });
}

/** A PUT as the CLI makes it: the archive with the CLI's headers, no key. */
export const cliPut = (url: string, archive: Buffer) => objectRequest('PUT', url, archive, cliUploadHeaders(archive.length));

/** Chunks of `size` bytes, `count` of them, made lazily (the client's memory stays flat too). */
export function* chunks(count: number, size = 64 * 1024): Generator<Buffer> {
  const chunk = Buffer.alloc(size, 7);
  for (let i = 0; i < count; i++) yield chunk;
}

/**
 * A PUT that announces `declared` bytes, sends `sent` of them, and then drops the connection (a client killed
 * mid-upload). Resolves once the socket is closed.
 */
export function cutOffPut(url: string, declared: number, sent: number): Promise<void> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const client = request({
      method: 'PUT', host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, headers: cliUploadHeaders(declared),
    });
    client.on('error', () => {});
    client.on('close', () => resolve());
    client.write(Buffer.alloc(sent, 1), () => setTimeout(() => client.destroy(), 50));
  });
}

/** A refusal's FastAPI-shaped body. */
export function expectDetail(answer: ObjectAnswer, status: number, detail: string | RegExp): void {
  expect({ status: answer.status, type: answer.headers['content-type'] }).toEqual({ status, type: 'application/json' });
  const body = JSON.parse(answer.text) as { detail: string };
  if (typeof detail === 'string') expect(body).toEqual({ detail });
  else expect(body.detail).toMatch(detail);
}

/** Any client of the REST door: `call(method, path, options)` with an answer's status and JSON. */
type Caller<Options> = (method: string, path: string, options?: Options) => Promise<{ status: number; json: any }>;

/**
 * The CLI's remote-build upload (shared/spec/cli-deploy-flow.md, steps 4-5): asks the deployment's upload URL,
 * checks what the CLI checks of the answer, PUTs `archive` there without a key, and returns the object path
 * to PATCH in.
 */
export async function uploadArchive<Options>(call: Caller<Options>, deploymentId: string, archive = archiveOf(deploymentId), options?: Options): Promise<string> {
  const answer = await call('POST', `/v2/deployments/${deploymentId}/upload-url`, options);
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  const { upload_url: uploadUrl, object_path: objectPath } = answer.json;
  // Otherwise the CLI stops: "Upload URL response missing required fields".
  expect(typeof uploadUrl === 'string' && uploadUrl.length > 0 && typeof objectPath === 'string' && objectPath.length > 0).toBe(true);
  const put = await cliPut(uploadUrl, archive);
  expect(put.status, put.text).toBe(200);
  return objectPath;
}
