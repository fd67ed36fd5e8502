// The serialize step: what the operation runner answers, as status, headers and a whole body, for either door;
// and the headers every answer gets on its way out (CORS, the caller's budget, compression), as Yoga's plugins
// give them to its own answers.
import { STATUS_CODES } from 'node:http';
import { processRegularResult, type YogaServerInstance } from 'graphql-yoga';
import { getCORSHeadersByRequestAndOptions, type CORSOptions } from '@whatwg-node/server';
import type { ExecutionResult } from 'graphql';
import { rateLimitHeaders } from '../graphql/errors.ts';
import type { RequestScope } from '../observability/request-scope.ts';
import type { LegacyAnswer } from '../rest/legacy-responses.ts';
import type { ResponseCompression } from './response-compression.ts';
import type { RequestDigest } from './request-digest.ts';
import { CACHE_CONTROL, etagHeader, namesTag, VARY, type Revalidation } from './entity-tags.ts';

export interface Answer {
  status: number;
  statusText: string | undefined;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** The whole body (compressed: bytes); null for none (a redirect, a HEAD). */
  body: string | Buffer | null;
}

type FetchAPI = YogaServerInstance<object, object>['fetchAPI'];

/**
 * Copies header values under lower-case names, as node:http's writeHead takes them here; a Vary adds the names
 * it lacks to the answer's (CORS's `Origin` to a read's list).
 */
function setHeaders(into: Record<string, string>, from: Iterable<[string, string]>): void {
  for (const [name, value] of from) {
    const lower = name.toLowerCase();
    into[lower] = lower === 'vary' && into.vary ? mergedVary(into.vary, value) : value;
  }
}

function mergedVary(vary: string, more: string): string {
  const names = vary.split(',').map((name) => name.trim());
  const known = new Set(names.map((name) => name.toLowerCase()));
  for (const name of more.split(',').map((added) => added.trim())) if (name && !known.has(name.toLowerCase())) names.push(name);
  return names.join(', ');
}

/**
 * The answer Yoga's processRegularResult makes of a single result. One without errors and without HTTP
 * extensions is always 200, the media type and the result stringified (by the compiled operation's own
 * stringify where it has one), so it is made directly; any other goes through processRegularResult, which
 * takes its status and headers from the errors (401, 429, 400 for graphql-response+json...).
 */
export async function graphqlAnswer(result: ExecutionResult & { stringify?: (result: ExecutionResult) => string }, mediaType: string, fetchAPI: FetchAPI): Promise<Answer> {
  if (!result.errors?.length && !result.extensions?.http) {
    return { status: 200, statusText: undefined, headers: { 'content-type': `${mediaType}; charset=utf-8` }, body: (result.stringify ?? JSON.stringify)(result) };
  }
  const response = processRegularResult(result, fetchAPI, mediaType);
  const headers: Record<string, string> = {};
  setHeaders(headers, response.headers);
  return { status: response.status, statusText: response.statusText, headers, body: await response.text() };
}

/** A legacy answer as uvicorn sends it: JSON, with the reason phrase (`422 Unprocessable Entity`). */
export function legacyJsonAnswer({ status, body, headers }: LegacyAnswer): Answer {
  if (body === null) return { status, statusText: STATUS_CODES[status], headers: { ...headers }, body: null };
  return { status, statusText: STATUS_CODES[status], headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/**
 * 304 to a request whose If-None-Match names the answer's tag. Its ETag is the one the request named (a single
 * deployment's carries the version If-Match reads, which the 304's caller did not read again).
 */
export function notModifiedAnswer(revalidation: Revalidation): Answer {
  const named = revalidation.ifNoneMatch!.split(',').map((tag) => tag.trim().replace(/^W\//, '')).find((tag) => namesTag(tag, revalidation.etag!));
  return notModified(named ?? etagHeader(revalidation.etag!, undefined));
}

const notModified = (etag: string): Answer =>
  ({ status: 304, statusText: STATUS_CODES[304], headers: { etag, 'cache-control': CACHE_CONTROL, vary: VARY }, body: null });

/**
 * A read's answer with its validators: a 200 with a tag gets ETag, Cache-Control and Vary (and is 304 for
 * `If-None-Match: *`, which any current answer satisfies); any other answer is as it was.
 */
export function revalidatedAnswer(answer: Answer, revalidation: Revalidation): Answer {
  if (revalidation.notModified || answer.status !== 200 || revalidation.etag === undefined) return answer;
  // A deployment's representation carries the deployment's own tag, the one its writes' answers carry.
  const etag = revalidation.deploymentEtag ?? etagHeader(revalidation.etag, answer.headers.etag);
  if (revalidation.ifNoneMatch?.split(',').some((tag) => tag.trim() === '*')) {
    revalidation.notModified = true;
    return notModified(etag);
  }
  const { headers } = answer;
  headers.etag = etag;
  headers['cache-control'] = CACHE_CONTROL;
  headers.vary = VARY;
  return answer;
}

export interface AnswerHeaders {
  /** Yoga's CORS options (false: none configured). */
  cors: CORSOptions;
  compression: ResponseCompression | undefined;
}

/**
 * The answer as sent: with the CORS headers of a request with an Origin (as Yoga's CORS support adds them), the
 * caller's remaining budget (but on a 429, which carries its own), compressed for a client that asks, without
 * a body for a HEAD.
 */
export function finishedAnswer(answer: Answer, request: RequestDigest, scope: RequestScope, { cors, compression }: AnswerHeaders): Answer {
  const { headers } = answer;
  setHeaders(headers, Object.entries(getCORSHeadersByRequestAndOptions(request as unknown as Request, cors) ?? {}));
  if (scope.rateLimit && answer.status !== 429) setHeaders(headers, Object.entries(rateLimitHeaders(scope.rateLimit)));
  const acceptEncoding = request.headers.get('accept-encoding');
  let { body } = answer;
  if (compression && acceptEncoding !== null && body !== null) {
    body = compression.apply(acceptEncoding, headers, body, request.method === 'HEAD') ?? body;
  }
  // A HEAD's answer says the length of its GET's body, uncompressed (as Yoga's answer to it did).
  if (body !== null) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  return { ...answer, body: request.method === 'HEAD' ? null : body };
}
