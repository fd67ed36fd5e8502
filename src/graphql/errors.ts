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
