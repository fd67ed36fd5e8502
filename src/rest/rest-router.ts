// The REST door, in the order its steps take (restAnswer): which route a path names (as Starlette would:
// percent-decoded, a trailing slash redirected, 404, 405), the caller (a refusal answered as the original
// does), the parameters (422), the route's GraphQL operation, and the legacy answer to its result. How the
// caller is authenticated and the operation executed is the caller's of restAnswer: the operation runner's
// steps (runner/rest-requests.ts), or Yoga's envelop in the reference the runner is compared with
// (http/legacy-rest.plugin.ts).
import { GraphQLError, type ExecutionResult } from 'graphql';
import { isDatabaseUnavailable } from '../db/connection-loss.ts';
import type { RequestScope } from '../observability/request-scope.ts';
import { clientGone, detail, internalServerError, legacyAnswer, methodNotAllowed, notFoundRoute, serviceUnavailable, temporaryRedirect, validationFailed, type LegacyAnswer } from './legacy-responses.ts';
import { parseParameters } from './parameters.ts';
import { pydanticError } from './pydantic-errors.ts';
import type { RestRoute, RouteCall } from './rest-route.ts';

/**
 * The path as uvicorn hands it to Starlette (Python's `urllib.parse.unquote`): every valid `%XX` becomes its
 * byte, a stray `%` stays, and bytes that are not UTF-8 become U+FFFD.
 */
function decodePath(path: string): string {
  if (!path.includes('%')) return path;
  const bytes: number[] = [];
  for (let i = 0; i < path.length; i++) {
    const escape = path[i] === '%' ? /^[0-9a-fA-F]{2}$/.exec(path.slice(i + 1, i + 3)) : null;
    if (escape) {
      bytes.push(Number.parseInt(escape[0], 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(path[i]!, 'utf8'));
    }
  }
  return new TextDecoder('utf-8').decode(Uint8Array.from(bytes));
}

export interface MatchedRoute {
  route: RestRoute;
  /** The path's parameters, decoded. */
  path: Record<string, string>;
}

export class RestRouter {
  readonly #routes: Array<{ route: RestRoute; pattern: RegExp }>;
  /** The first segments of the routes' paths (`v1`, `v2`). */
  readonly #segments: Set<string>;

  constructor(routes: readonly RestRoute[]) {
    this.#routes = routes.map((route) => ({ route, pattern: new RegExp(`^${route.path.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`) }));
    this.#segments = new Set(routes.map((route) => route.path.split('/')[1]!));
  }

  /** Whether a path is the REST door's (its first segment is a route's): an unknown one there is the door's 404. */
  owns(pathname: string): boolean {
    return this.#segments.has(decodePath(pathname).split('/')[1] ?? '');
  }

  /** The route `pathname` names and its parameters, or the answer Starlette gives instead (404, 307, 405). */
  resolve(url: URL): MatchedRoute | LegacyAnswer {
    // uvicorn hands Starlette the percent-decoded path: `/v2/deployment%73` is `/v2/deployments`.
    const pathname = decodePath(url.pathname);
    const found = this.#match(pathname);
    if (!found) {
      if (pathname.length > 1 && pathname.endsWith('/') && this.#match(pathname.slice(0, -1))) {
        const location = new URL(url);
        location.pathname = url.pathname.slice(0, -1);
        return temporaryRedirect(location.toString());
      }
      return notFoundRoute();
    }
    return found;
  }

  #match(pathname: string): MatchedRoute | undefined {
    for (const { route, pattern } of this.#routes) {
      const found = pattern.exec(pathname);
      if (found) return { route, path: { ...found.groups } };
    }
    return undefined;
  }
}

export const isRead = (method: string) => method === 'GET' || method === 'HEAD';
export const readOnly = () => methodNotAllowed('GET, HEAD');

/** How a route's operation is run: who the caller is (rejecting a refused one), and its execution. */
export interface RouteOperation<Caller> {
  caller(route: RestRoute): Caller | Promise<Caller>;
  execute(route: RestRoute, caller: Caller, variables: Record<string, unknown>): Promise<ExecutionResult>;
}

/** Hears of a failure that is the service's fault (answered 500). */
export type FailureLog = (message: string, detail: unknown) => void;

/** The legacy answer to a request of the REST door's paths; names its route in the scope once matched. */
export async function restAnswer<Caller>(
  router: RestRouter, method: string, url: URL, scope: RequestScope, operation: RouteOperation<Caller>, logFailure: FailureLog,
): Promise<LegacyAnswer> {
  const found = router.resolve(url);
  if (!('route' in found)) return found;
  const { route, path } = found;
  scope.route = route.path;
  if (!isRead(method)) return readOnly();
  try {
    let caller: Caller;
    try {
      caller = await operation.caller(route);
    } catch (refusal) {
      const answer = classifiedAnswer(refusal);
      if (answer) return answer;
      throw refusal;
    }
    const parsed = parseParameters(route.parameters, url.searchParams, path);
    if (!parsed.ok) return validationFailed(parsed.errors);
    const call = { values: parsed.values, path };
    const result = await operation.execute(route, caller, route.variables(call));
    // A client gone while the operation waited for its turn: it did not run, and nothing is answered.
    if (scope.ended) return clientGone();
    return resultAnswer(route, call, url.searchParams, result, (errors) => logFailure('REST operation failed', errors));
  } catch (error) {
    if (isDatabaseUnavailable(error)) return serviceUnavailable();
    logFailure('REST request failed', error);
    return internalServerError();
  }
}

/** The legacy answer to an error the GraphQL layer classified (auth, rate limit, missing, database down), if any. */
function classifiedAnswer(error: unknown): LegacyAnswer | undefined {
  if (!(error instanceof GraphQLError)) return isDatabaseUnavailable(error) ? serviceUnavailable() : undefined;
  switch (error.extensions.code) {
    case 'UNAUTHENTICATED': return detail(401, error.message, { 'www-authenticate': 'APIKey' });
    case 'FORBIDDEN': return detail(403, error.message);
    case 'NOT_FOUND': return detail(404, error.message);
    case 'SERVICE_UNAVAILABLE': return serviceUnavailable();
    case 'RATE_LIMITED': return detail(429, error.message.replace(/\.$/, ''), httpHeadersOf(error));
    default: return isDatabaseUnavailable(error) ? serviceUnavailable() : undefined;
  }
}

/**
 * The legacy answer to the route's (masked) result: its data as the route maps it, or the answer to its first
 * error; `logFailure` hears of a failure that is the service's fault (500).
 */
function resultAnswer(route: RestRoute, call: RouteCall, query: URLSearchParams, result: ExecutionResult, logFailure: (errors: readonly GraphQLError[]) => void): LegacyAnswer {
  // A secret that cannot be decrypted is null in the data (masked by the route, as for a key without the
  // read-secrets scope) and already logged: the rest of the page is served (docs/decisions.md#unreadable-secrets).
  const errors = result.errors?.filter((error) => error.extensions?.code !== 'SECRET_UNREADABLE');
  if (!errors?.length) {
    const { status, body } = route.respond(result.data as Record<string, unknown>, call);
    return legacyAnswer(status, body);
  }
  const [first] = errors;
  const classified = classifiedAnswer(first);
  if (classified) return classified;
  if (first?.extensions.code === 'BAD_USER_INPUT') {
    const parameter = parameterOfArgument(String(first.extensions.argument));
    const input = query.getAll(parameter).at(-1) ?? call.path[parameter] ?? null;
    const problem = first.message.replace(/^Invalid argument "[^"]+": /, '').replace(/\.$/, '');
    return validationFailed([pydanticError.valueError(['query', parameter], input as string, problem)]);
  }
  logFailure(errors);
  return internalServerError();
}

/** The REST parameter a GraphQL argument came from (`filter.nameContains` → `name_contains`). */
function parameterOfArgument(argument: string): string {
  const special: Record<string, string> = { 'filter.ids': 'deployment_ids', 'filter.statuses': 'status', integrationId: 'integration_id' };
  return special[argument] ?? argument.replace(/^filter\./, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

const httpHeadersOf = (error: GraphQLError): Record<string, string> =>
  ((error.extensions.http as { headers?: Record<string, string> } | undefined)?.headers ?? {});
