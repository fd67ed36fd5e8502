// Answers in the original service's (FastAPI's) shapes, as data: the operation runner serializes them
// (runner/answer.ts), as it does GraphQL results.
import type { ValidationErrorItem } from './pydantic-errors.ts';
import type { ValueProblem } from '../modules/deployments/writes/write-problems.ts';
import { RETRY_AFTER_SECONDS } from '../db/connection-loss.ts';

export interface LegacyAnswer {
  status: number;
  /** A JSON value; null for an answer without a body (a redirect). */
  body: unknown;
  headers?: Record<string, string>;
}

export const legacyAnswer = (status: number, body: unknown, headers?: Record<string, string>): LegacyAnswer => ({ status, body, headers });

/** `{"detail": "..."}`, the body of every FastAPI HTTPException. */
export const detail = (status: number, message: string, headers?: Record<string, string>) => legacyAnswer(status, { detail: message }, headers);

/** FastAPI's 422: every problem of the parameters and the body, as pydantic lists them. */
export const validationFailed = (errors: readonly (ValidationErrorItem | ValueProblem)[]) => legacyAnswer(422, { detail: errors });

export const notFoundRoute = () => detail(404, 'Not Found');
export const methodNotAllowed = (allow: string) => detail(405, 'Method Not Allowed', { allow });
export const internalServerError = () => detail(500, 'Internal Server Error');
export const serviceUnavailable = () =>
  detail(503, 'Service Unavailable: the database cannot be reached, retry shortly', { 'retry-after': String(RETRY_AFTER_SECONDS) });
/** Starlette's redirect of a path with a trailing slash to the route without it. */
export const temporaryRedirect = (location: string) => legacyAnswer(307, null, { location });
/** What a request whose client has gone gets (nginx's 499, Client Closed Request): never sent, nobody listens. */
export const clientGone = () => legacyAnswer(499, null);
/** A read whose If-None-Match names its answer's tag: no body (the runner adds the validators). */
export const notModified = () => legacyAnswer(304, null);
