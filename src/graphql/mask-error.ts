// What clients see of an unexpected error: Yoga's "Unexpected error." (details stay in the server log),
// except a database that cannot be reached, which is temporary: SERVICE_UNAVAILABLE, HTTP 503, Retry-After.
import { GraphQLError } from 'graphql';
import { maskError as yogaMaskError } from 'graphql-yoga';
import { isDatabaseUnavailable, RETRY_AFTER_SECONDS } from '../db/connection-loss.ts';

export const DATABASE_UNAVAILABLE_MESSAGE = 'The database is unavailable; retry shortly.';
/** What an unexpected error says to clients (Yoga's own default). */
export const UNEXPECTED_ERROR_MESSAGE = 'Unexpected error.';

export function databaseUnavailableError(from?: GraphQLError): GraphQLError {
  return new GraphQLError(DATABASE_UNAVAILABLE_MESSAGE, {
    nodes: from?.nodes,
    path: from?.path,
    extensions: { code: 'SERVICE_UNAVAILABLE', http: { status: 503, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } } },
  });
}

export function maskUnexpectedError(error: unknown, message: string): Error {
  if (isDatabaseUnavailable(error)) return databaseUnavailableError(error instanceof GraphQLError ? error : undefined);
  // Never attach stacks or original messages, whatever NODE_ENV says.
  return yogaMaskError(error, message, false);
}
