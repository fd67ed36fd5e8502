// GraphQL shapes of our domain errors: `extensions.code` for clients, `extensions.http` for Yoga's status.
import { GraphQLError } from 'graphql';
import { AuthError } from '../modules/tenancy/authenticate.ts';

export function authErrorToGraphQL(error: unknown): never {
  if (!(error instanceof AuthError)) throw error;
  throw new GraphQLError(error.message, {
    extensions: {
      code: error.status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN',
      http: { status: error.status, headers: error.status === 401 ? { 'WWW-Authenticate': 'APIKey' } : {} },
    },
  });
}

/** An argument the caller can fix; the message and `extensions.argument` name it. */
export function badUserInput(argument: string, problem: string): GraphQLError {
  return new GraphQLError(`Invalid argument "${argument}": ${problem}.`, {
    extensions: { code: 'BAD_USER_INPUT', argument },
  });
}

/** Something that does not exist in the caller's tenant (another tenant's looks exactly the same). */
export function notFound(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'NOT_FOUND' } });
}
