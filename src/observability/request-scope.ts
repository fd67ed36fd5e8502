// What the process knows about the request it is serving, wherever it is in the call stack: the request id
// (for every log line), and what the layers learn on the way (the REST route, the GraphQL operation, the
// rate-limit budget) for the access log, the metrics and the response headers.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { ReservedTurn } from '../limits/operations-at-once.ts';

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
  /** The GraphQL operation name, when the request executed one. */
  operation?: string;
  /** The id of the trusted document a /graphql request named (only ids of the manifest). */
  documentId?: string;
  tenantId?: string;
  rateLimit?: RateLimitState;
  /**
   * The caller's authentication, once per HTTP request whichever path serves it (graphql/context.ts): a request
   * the plain GraphQL path hands back to Yoga does not spend its budget, or count a wrong key, twice.
   */
  authentication?: Promise<unknown>;
  /** The turn a REST read reserved at the HTTP door, for its route to run in (limits/operations-at-once.ts). */
  turn?: Promise<ReservedTurn>;
}

const storage = new AsyncLocalStorage<RequestScope>();

export const runInRequestScope = <T>(scope: RequestScope, work: () => T): T => storage.run(scope, work);

export const currentRequestScope = (): RequestScope | undefined => storage.getStore();

// A caller's id is kept only if it is short and printable: it ends up in logs and response headers.
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:\-]{1,128}$/;

/** The caller's `X-Request-Id` when it is usable, otherwise a new UUID. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const given = Array.isArray(header) ? header[0] : header;
  return given !== undefined && ACCEPTED_REQUEST_ID.test(given) ? given : randomUUID();
}
