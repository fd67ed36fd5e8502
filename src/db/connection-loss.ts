// Recognises "the database cannot be reached right now" (refused, reset, terminated, shutting down, out of
// connections) in whatever wrapping it arrives: MikroORM's exceptions, pg's errors, GraphQL's originalError.
// Such a failure is temporary, so callers answer 503 with Retry-After instead of a 500. An error the request
// caused must never count: a 503 tells the client to send it again, and the throttled "database unavailable"
// warning it feeds would hide a real outage behind it (docs/decisions.md#text-and-json-the-database-can-hold).
import { ConnectionException } from '@mikro-orm/core';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE']);
/** A SQLSTATE: the server (or a pooler speaking its protocol) answered, with an error of its own. */
const SQLSTATE = /^[0-9A-Z]{5}$/;
// SQLSTATE class 08 (connection exception), 57P01-57P03 (shutdown, cannot connect now), 53300 (too many
// connections), 57014 (statement cancelled: DB_STATEMENT_TIMEOUT_MS, an overloaded or locked database)
const UNAVAILABLE_SQLSTATES = /^(08...|57P0[123]|53300|57014)$/;
// pg's own: a connection that dropped, a pool that could not hand one out in time, a server that stopped
// answering a statement (the read timeout of callback-query-client.ts, with pg's message); and an operation
// that waited as long as for a connection for its turn to execute (limits/operations-at-once.ts)
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout|No turn to execute within/i;

export const RETRY_AFTER_SECONDS = 5;

type Failure = { code?: unknown; severity?: unknown; message?: unknown; originalError?: unknown; cause?: unknown; previous?: unknown };

/** The error and what it wraps, outermost first (a few levels: GraphQLError, MikroORM's exception, pg's error). */
function chainOf(error: unknown): Failure[] {
  const chain: Failure[] = [];
  for (let current = error; current && chain.length < 6;) {
    const failure = current as Failure;
    chain.push(failure);
    current = failure.originalError ?? failure.previous ?? failure.cause;
  }
  return chain;
}

export function isDatabaseUnavailable(error: unknown): boolean {
  const chain = chainOf(error);
  // A server that answered with a SQLSTATE is reached: that code alone decides. Its message (and the wrappers'
  // copies of it) may quote the statement, and so the request's own text: no pattern is looked for there.
  const answered = chain.find(({ code }) => typeof code === 'string' && SQLSTATE.test(code) && !NETWORK_CODES.has(code));
  if (answered) return isUnavailableState(answered.code as string, answered.severity);
  return chain.some((failure) => failure instanceof ConnectionException
    || (typeof failure.code === 'string' && NETWORK_CODES.has(failure.code))
    || (typeof failure.message === 'string' && UNAVAILABLE_MESSAGES.test(failure.message)));
}

/**
 * Class 08 as an ERROR (not FATAL) leaves the session open: the server refused one message, which the request
 * made. PostgreSQL's "invalid message format" (08P01) is the one seen: a NUL character in a value the ORM
 * writes into the statement's text ends that text early inside the protocol message. A pooler or a server
 * ending the session says FATAL; pg's own "Connection terminated" carries no SQLSTATE and is caught above.
 */
function isUnavailableState(code: string, severity: unknown): boolean {
  if (code.startsWith('08') && severity === 'ERROR') return false;
  return UNAVAILABLE_SQLSTATES.test(code);
}
