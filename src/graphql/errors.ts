// GraphQL shapes of our domain errors: `extensions.code` for clients, `extensions.http` for Yoga's status.
import { GraphQLError } from 'graphql';
import { AuthError, TENANT_REQUIRED } from '../modules/tenancy/authenticate.ts';
import { RateLimitExceeded } from '../limits/rate-limiter.ts';
import type { RateLimitState } from '../observability/request-scope.ts';
import type { SecretDecryptionError } from '../modules/secrets/secret-cipher.ts';

/**
 * One stored secret cannot be decrypted (damaged, or written under a key this process lacks): that value is
 * null with this error on its path, and the rest of the result is served (docs/decisions.md#unreadable-secrets).
 * The message names what the caller may already see; the key's fingerprint goes to the server log only.
 */
export function secretUnreadable(error: SecretDecryptionError): GraphQLError {
  return new GraphQLError(
    `The value of secret "${error.secretName}" of deployment ${error.deploymentId} cannot be read; the rest of the result is complete, and the error is logged for the operator.`,
    { extensions: { code: 'SECRET_UNREADABLE' } },
  );
}

/**
 * A refused caller. The REST door answers `legacyDetail`, the original's words that legacy clients compare
 * (shared/spec/contract.md); GraphQL's message adds, for a key missing or wrong, where a key goes and, in
 * demo mode, where the demo key is kept (docs/decisions.md#authentication-failures).
 */
export class CallerRefused extends GraphQLError {
  readonly legacyDetail: string;

  constructor(error: AuthError, demoKeyFile: string | undefined) {
    super(`${error.message}${hintFor(error, demoKeyFile)}`, {
      extensions: {
        code: error.status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN',
        http: { status: error.status, headers: error.status === 401 ? { 'WWW-Authenticate': 'APIKey' } : {} },
      },
    });
    this.legacyDetail = error.message;
  }
}

function hintFor(error: AuthError, demoKeyFile: string | undefined): string {
  const demo = demoKeyFile ? `; the demo key is in ${demoKeyFile}` : '';
  switch (error.reason) {
    case 'missing-key': return `: send an API key in the X-Api-Key header (or as Authorization: Bearer <key>)${demo}.`;
    case 'invalid-key': return `: the key sent in X-Api-Key (or Authorization: Bearer) is unknown or revoked${demo}.`;
    default: return '';
  }
}

export function authErrorToGraphQL(error: unknown, demoKeyFile?: string): never {
  if (!(error instanceof AuthError)) throw error;
  throw new CallerRefused(error, demoKeyFile);
}

/**
 * A data-plane key of several tenants asked for something of one tenant without naming it (X-Tenant-Id): the
 * same refusal, word for word, as any key of several tenants gets.
 */
export function tenantRequired(): GraphQLError {
  return new GraphQLError(TENANT_REQUIRED, { extensions: { code: 'FORBIDDEN', http: { status: 403 } } });
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

/** IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers), sent with every rate-limited answer. */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return { 'RateLimit-Limit': String(state.limit), 'RateLimit-Remaining': String(state.remaining), 'RateLimit-Reset': String(state.resetSeconds) };
}

export function rateLimitToGraphQL(error: unknown): never {
  if (!(error instanceof RateLimitExceeded)) throw error;
  throw new GraphQLError(`${error.message}.`, {
    extensions: {
      code: 'RATE_LIMITED',
      retryAfterSeconds: error.state.resetSeconds,
      http: { status: 429, headers: { 'Retry-After': String(error.state.resetSeconds), ...rateLimitHeaders(error.state) } },
    },
  });
}
