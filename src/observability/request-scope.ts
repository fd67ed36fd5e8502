// What the process knows about the request it is serving, wherever it is in the call stack: the request id
// (for every log line), and what the layers learn on the way (the REST route, the GraphQL operation, the
// rate-limit budget) for the access log, the metrics and the response headers.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Principal } from '../modules/tenancy/authenticate.ts';

export interface RateLimitState {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export interface RequestScope {
  requestId: string;
  /** The peer's address (failed-authentication budgets are kept per address). */
  clientAddress?: string;
  /** A route template (`/v2/deployments`, `/graphql`, `/metrics`), never the raw path: it labels metrics. */
  route?: string;
  /**
   * The query parameters of the REST route the request named (those it declares): the access line shows their
   * values, and of every other parameter its name only (loggable-path.ts).
   */
  queryParameters?: ReadonlySet<string>;
  /** The GraphQL operation name, when the request executed one. */
  operation?: string;
  /** The id of the trusted document a /graphql request named (only ids of the manifest). */
  documentId?: string;
  tenantId?: string;
  rateLimit?: RateLimitState;
  /**
   * The caller, once per HTTP request whichever step asks first (graphql/caller.ts): a request the runner
   * declines to Yoga does not spend its budget, or count a wrong key, twice. A refusal is a rejected promise.
   */
  caller?: Principal | Promise<Principal>;
  /** Set by the HTTP adapter once the request has ended (answered, or its client gone). */
  ended?: boolean;
}

const storage = new AsyncLocalStorage<RequestScope>();

export const runInRequestScope = <T>(scope: RequestScope, work: () => T): T => storage.run(scope, work);

/** For log lines only (the logger's request id): every step is handed the scope it works for. */
export const currentRequestScope = (): RequestScope | undefined => storage.getStore();

/**
 * The scope of a request Yoga serves: the HTTP adapter hands it to Yoga in the server context; a request that
 * reached Yoga some other way gets one of its own.
 */
export function scopeOfServerContext(context: object): RequestScope {
  const holder = context as { scope?: RequestScope };
  return (holder.scope ??= { requestId: randomUUID() });
}

// A caller's id is kept only if it is short and printable: it ends up in logs and response headers.
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:\-]{1,128}$/;

/** The caller's `X-Request-Id` when it is usable, otherwise a new UUID. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const given = Array.isArray(header) ? header[0] : header;
  return given !== undefined && ACCEPTED_REQUEST_ID.test(given) ? given : randomUUID();
}
