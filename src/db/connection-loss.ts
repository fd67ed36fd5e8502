// Recognises "the database cannot be reached right now" (refused, reset, terminated, shutting down, out of
// connections) in whatever wrapping it arrives: MikroORM's exceptions, pg's errors, GraphQL's originalError.
// Such a failure is temporary, so callers answer 503 with Retry-After instead of a 500.
import { ConnectionException } from '@mikro-orm/core';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE']);
// SQLSTATE class 08 (connection exception), 57P01-57P03 (shutdown, cannot connect now), 53300 (too many
// connections), 57014 (statement cancelled: DB_STATEMENT_TIMEOUT_MS, an overloaded or locked database)
const UNAVAILABLE_SQLSTATES = /^(08...|57P0[123]|53300|57014)$/;
// pg's own: a connection that dropped, a pool that could not hand one out in time, a server that stopped
// answering a statement (the read timeout of callback-query-client.ts, with pg's message); and an operation
// that waited as long as for a connection for its turn to execute (limits/operations-at-once.ts)
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout|No turn to execute within/i;

export const RETRY_AFTER_SECONDS = 5;

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 6; depth++) {
    if (current instanceof ConnectionException) return true;
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.test(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
    const next = current as { originalError?: unknown; cause?: unknown; previous?: unknown };
    current = next.originalError ?? next.previous ?? next.cause;
  }
  return false;
}
