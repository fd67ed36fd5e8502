// The built-in store's URLs, served by this service before anything reads a body (http/request-handler.ts):
// `PUT /objects/<path>?expires=…&max_bytes=…&signature=…` stores an upload, `GET /objects/<path>?expires=…&
// signature=…` serves it. No API key: the signature is the permission (url-signature.ts). The upload streams
// to disk as it arrives, so the JSON body limit (MAX_BODY_BYTES) does not apply and memory stays flat; its own
// limit is the one its URL was signed with. Refusals are FastAPI-shaped, `{"detail": …}`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObjectPath } from './object-store.ts';
import { OBJECTS_PATH, type EmbeddedObjectStore } from './embedded-object-store.ts';
import type { SignedMethod } from './url-signature.ts';

/** The route of these requests in logs and metrics. */
export const OBJECT_ROUTE = `${OBJECTS_PATH}{object_path}`;
/** An upload may take this long in all (the CLI's own timeout is 300 s without progress). */
export const UPLOAD_DEADLINE_MS = 60 * 60 * 1000;
/** An upload that sends nothing for this long is cut off. */
const UPLOAD_IDLE_MS = 120 * 1000;

const INVALID = 'The signature of this URL does not match it: ask for a new one (POST /v2/deployments/{deployment_id}/upload-url).';

function answer(res: ServerResponse, status: number, detail: string | undefined, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const body = detail === undefined ? '' : JSON.stringify({ detail });
  res.writeHead(status, { ...(detail !== undefined && { 'content-type': 'application/json' }), 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

const integer = (value: string | null, digits: number) => (value !== null && new RegExp(`^\\d{1,${digits}}$`).test(value) ? Number(value) : undefined);

export class EmbeddedObjectRequests {
  readonly route = OBJECT_ROUTE;
  readonly #store: EmbeddedObjectStore;

  constructor(store: EmbeddedObjectStore) {
    this.#store = store;
  }

  /** Whether the request is one of these (known from its request line, before its body is read). */
  owns(url: string): boolean {
    return url.startsWith(OBJECTS_PATH);
  }

  /** How long the request may take to arrive: an upload's bytes may take a while; undefined: the usual bound. */
  deadlineOf(method: string | undefined): number | undefined {
    return method === 'PUT' ? UPLOAD_DEADLINE_MS : undefined;
  }

  async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const question = url.indexOf('?');
    const objectPath = url.slice(OBJECTS_PATH.length, question === -1 ? undefined : question);
    const query = new URLSearchParams(question === -1 ? '' : url.slice(question + 1));
    const method = req.method;
    // A refused upload's body is not read: the connection cannot carry another request.
    const close = { connection: 'close' };
    if (method !== 'PUT' && method !== 'GET') return answer(res, 405, 'Method Not Allowed', { allow: 'GET, PUT', ...close });
    // A path this service never issues (`..`, an encoded character, an empty segment) is not looked at.
    if (!isObjectPath(objectPath)) return answer(res, 404, 'Not Found', close);
    const expires = integer(query.get('expires'), 12);
    const maxBytes = method === 'PUT' ? integer(query.get('max_bytes'), 15) : undefined;
    const signature = query.get('signature');
    if (expires === undefined || (method === 'PUT' && maxBytes === undefined) || signature === null) return answer(res, 403, INVALID, close);
    const problem = this.#store.signer.verify({ method: method as SignedMethod, path: objectPath, expires, maxBytes }, signature);
    if (problem === 'invalid') return answer(res, 403, INVALID, close);
    if (problem === 'expired') {
      return answer(res, 403, `This URL expired at ${new Date(expires * 1000).toISOString()}: ask for a new one (POST /v2/deployments/{deployment_id}/upload-url).`, close);
    }
    if (method === 'GET') return this.#download(objectPath, res);
    return this.#upload(objectPath, maxBytes!, req, res);
  }

  async #upload(objectPath: string, maxBytes: number, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const tooLarge = `The archive is larger than the limit of ${maxBytes} bytes.`;
    const declared = req.headers['content-length'];
    // Node's parser holds the body to its declared length: the header alone decides, before a byte is read.
    if (declared !== undefined && Number(declared) > maxBytes) return answer(res, 413, tooLarge, { connection: 'close' });
    req.setTimeout(UPLOAD_IDLE_MS, () => req.destroy());
    const outcome = await this.#store.put(objectPath, req, maxBytes);
    if (outcome === 'stored') return answer(res, 200, undefined);
    if (outcome === 'too-large') return answer(res, 413, tooLarge, { connection: 'close' });
    // The client went away: there is nobody to answer.
    res.destroy();
  }

  async #download(objectPath: string, res: ServerResponse): Promise<void> {
    const object = await this.#store.open(objectPath);
    if (!object) return answer(res, 404, 'There is no object at this path (nothing was uploaded, or it was removed).');
    res.writeHead(200, {
      'content-type': objectPath.endsWith('.gz') ? 'application/gzip' : 'application/octet-stream',
      'content-length': String(object.size),
    });
    object.stream.pipe(res);
    await new Promise<void>((resolve) => {
      res.once('close', resolve);
      object.stream.once('error', () => res.destroy());
    });
    object.stream.destroy();
  }
}
