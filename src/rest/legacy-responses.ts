// Response bodies in the original service's (FastAPI's) shapes.
import { STATUS_CODES } from 'node:http';
// The Fetch API implementation Yoga answers with: a body given as a string or a Buffer is written as it is, with
// its Content-Length (uvicorn sends one too); the global Response's body would be streamed to the socket in chunks.
import { Response } from '@whatwg-node/fetch';
import type { ValidationErrorItem } from './pydantic-errors.ts';
import { RETRY_AFTER_SECONDS } from '../db/connection-loss.ts';
import { bodyBytes } from '../http/body-bytes.ts';

export const JSON_HEADERS = { 'content-type': 'application/json' };

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  // The reason phrase too (`422 Unprocessable Entity`), as uvicorn sends it.
  return new Response(bodyBytes(JSON.stringify(body)), { status, statusText: STATUS_CODES[status], headers: { ...JSON_HEADERS, ...headers } });
}

/** `{"detail": "..."}`, the body of every FastAPI HTTPException. */
export const detail = (status: number, message: string, headers: Record<string, string> = {}) =>
  jsonResponse(status, { detail: message }, headers);

export const validationFailed = (errors: ValidationErrorItem[]) => jsonResponse(422, { detail: errors });

export const notFoundRoute = () => detail(404, 'Not Found');
export const methodNotAllowed = (allow: string) => detail(405, 'Method Not Allowed', { allow });
export const internalServerError = () => detail(500, 'Internal Server Error');
export const serviceUnavailable = () =>
  detail(503, 'Service Unavailable: the database cannot be reached, retry shortly', { 'retry-after': String(RETRY_AFTER_SECONDS) });
