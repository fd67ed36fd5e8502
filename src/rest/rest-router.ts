// The REST door, in the order its steps take (restAnswer): which route a path names (as Starlette would:
// percent-decoded, a trailing slash redirected, 404, 405), the caller (a refusal answered as the original
// does), its permission (403), the parameters and body (422), the route's operation, and the legacy answer to
// its result. A read's operation is its GraphQL query; a write's is its handler, given the body as validated
// here, then its query of what the write left (runRouteWrite), and a refusal the handler throws is answered by
// refusal-answers.ts. How the caller is authenticated and the operation executed is the caller's of restAnswer:
// the operation runner's steps (runner/rest-requests.ts), or Yoga's envelop in the reference the runner is
// compared with (http/legacy-rest.plugin.ts).
import { GraphQLError, locatedError, type ExecutionResult } from 'graphql';
import { isDatabaseUnavailable } from '../db/connection-loss.ts';
import type { RequestScope } from '../observability/request-scope.ts';
import { clientGone, detail, notModified, internalServerError, legacyAnswer, methodNotAllowed, notFoundRoute, serviceUnavailable, temporaryRedirect, validationFailed, type LegacyAnswer } from './legacy-responses.ts';
import { parseParameters } from './parameters.ts';
import { pydanticError } from './pydantic-errors.ts';
import { needsWritePermission, type BodyCheck, type RestRoute, type RouteCall } from './rest-route.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import type { WriteFirst } from '../runner/run-operation.ts';
import { refusalAnswer } from './refusal-answers.ts';
import { KeyedWrite } from '../modules/idempotency/keyed-write.ts';
import { NO_SINGLE_TENANT, TENANT_REQUIRED, type Principal } from '../modules/tenancy/authenticate.ts';
import { NOT_A_DATA_PLANE } from '../modules/revisions/lifecycle/lifecycle-problems.ts';
import { READ_ONLY_KEY } from '../modules/deployments/writes/write-problems.ts';
import { IDEMPOTENCY_KEY } from '../modules/idempotency/idempotency-key.ts';
import { keyedLegacyWrite, legacyAnswerOf, type IdempotentWrites } from './idempotent-writes.ts';
import { parseJsonBody } from './json-body.ts';
import { NOT_MODIFIED } from '../graphql/not-modified.ts';
import { CallerRefused } from '../graphql/errors.ts';

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
  /** The names of the query parameters the route declares. */
  queryParameters: ReadonlySet<string>;
}

export class RestRouter {
  readonly #routes: Array<{ route: RestRoute; pattern: RegExp; queryParameters: ReadonlySet<string> }>;
  /** The first segments of the routes' paths (`v1`, `v2`). */
  readonly #segments: Set<string>;

  constructor(routes: readonly RestRoute[]) {
    this.#routes = routes.map((route) => ({
      route,
      pattern: new RegExp(`^${route.path.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`),
      queryParameters: new Set(route.parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name)),
    }));
    this.#segments = new Set(routes.map((route) => route.path.split('/')[1]!));
  }

  /** Whether a path is the REST door's (its first segment is a route's): an unknown one there is the door's 404. */
  owns(pathname: string): boolean {
    return this.#segments.has(decodePath(pathname).split('/')[1] ?? '');
  }

  /**
   * The route `method` and `pathname` name, and its parameters, or the answer Starlette gives instead (404,
   * 307, or 405 naming the methods the path has).
   */
  resolve(url: URL, method: string): MatchedRoute | LegacyAnswer {
    // uvicorn hands Starlette the percent-decoded path: `/v2/deployment%73` is `/v2/deployments`.
    const pathname = decodePath(url.pathname);
    const found = this.#match(pathname);
    if (found.length === 0) {
      if (pathname.length > 1 && pathname.endsWith('/') && this.#match(pathname.slice(0, -1)).length > 0) {
        const location = new URL(url);
        location.pathname = url.pathname.slice(0, -1);
        return temporaryRedirect(location.toString());
      }
      return notFoundRoute();
    }
    const wanted = method === 'HEAD' ? 'GET' : method;
    const matched = found.find(({ route }) => (route.method ?? 'GET') === wanted);
    if (matched) return matched;
    return methodNotAllowed(found.flatMap(({ route }) => ((route.method ?? 'GET') === 'GET' ? ['GET', 'HEAD'] : [route.method!])).join(', '));
  }

  /** The routes of the path, one per method: those of the first template that matches it. */
  #match(pathname: string): MatchedRoute[] {
    const first = this.#routes.find(({ pattern }) => pattern.test(pathname));
    if (!first) return [];
    return this.#routes.flatMap(({ route, pattern, queryParameters }) => {
      const found = route.path === first.route.path ? pattern.exec(pathname) : null;
      return found ? [{ route, path: { ...found.groups }, queryParameters }] : [];
    });
  }
}

export const isRead = (method: string) => method === 'GET' || method === 'HEAD';
export const readOnly = () => methodNotAllowed('GET, HEAD');

/** How a route's operation is run: who the caller is (rejecting a refused one), and its execution. */
export interface RouteOperation<Caller> {
  caller(route: RestRoute): Caller | Promise<Caller>;
  /** Who the caller is, for a write: its tenant and whether its key may write. */
  principalOf(caller: Caller): Principal;
  /** Runs a read's operation; under an Idempotency-Key, in `keyed`'s transaction (it then says the outcome). */
  execute(route: RestRoute, caller: Caller, variables: Record<string, unknown>, keyed: KeyedWrite<unknown> | undefined): Promise<ExecutionResult>;
  /**
   * Runs a write route's operation: `write` once, in the operation's context (under an Idempotency-Key, in
   * `keyed`'s transaction), then on the primary the answer it gives the variables of (run-operation.ts, runWrite).
   */
  write(route: RestRoute, caller: Caller, write: WriteFirst, keyed: KeyedWrite<unknown> | undefined): Promise<ExecutionResult>;
}

/** What a write route's write left for its answer: what it returned, or the answer to its refusal. */
type Wrote = { written: unknown } | { refused: LegacyAnswer };

/** The result of a write whose answer is its refusal's or reads nothing: no data to map, no error. */
const NO_READ: ExecutionResult = Object.freeze({ data: {} });

/**
 * The route's write in `ctx`, with the call as the door validated it, and the variables of its answer's
 * document; or the result that answers instead: a refusal's (`wrote` holds its answer), a failure's (an error of
 * the result, as a mutation's resolver error is, masked and answered as one), or a write's whose answer reads
 * nothing.
 */
export function runRouteWrite(route: RestRoute, call: RouteCall, wrote: (outcome: Wrote) => void): WriteFirst {
  return async (ctx: GraphQLContext) => {
    let written: unknown;
    try {
      written = await route.write!(ctx, call);
    } catch (error) {
      const refused = refusalAnswer(error, ctx);
      if (!refused) return { result: { data: null, errors: [locatedError(error, undefined)] } };
      wrote({ refused });
      return { result: NO_READ };
    }
    wrote({ written });
    return route.document ? { variables: route.variables?.(call, written) } : { result: NO_READ };
  };
}

/** What the REST door reads of a request. */
export interface RestRequest {
  method: string;
  url: URL;
  headers: Pick<Headers, 'get'>;
  /** The whole body, already read; undefined for none. */
  body: Buffer | undefined;
}

/** Hears of a failure that is the service's fault (answered 500). */
export type FailureLog = (message: string, detail: unknown) => void;

/**
 * The legacy answer to a request of the REST door's paths; names its route in the scope once matched. The
 * steps, in order: route (404, 307, 405), caller (401, 403, 429), write permission (403), parameters and body
 * (one 422 with every problem, as FastAPI gives), the Idempotency-Key (idempotent-writes.ts), the operation.
 */
export async function restAnswer<Caller>(
  router: RestRouter, request: RestRequest, scope: RequestScope, operation: RouteOperation<Caller>, logFailure: FailureLog,
  idempotentWrites: IdempotentWrites | undefined,
): Promise<LegacyAnswer> {
  const { method, url } = request;
  const found = router.resolve(url, method);
  if (!('route' in found)) return found;
  const { route, path } = found;
  scope.route = route.path;
  // The access line shows these parameters' values (the filters and page that say which request it was).
  scope.queryParameters = found.queryParameters;
  try {
    let caller: Caller;
    try {
      caller = await operation.caller(route);
    } catch (refusal) {
      const answer = classifiedAnswer(refusal);
      if (answer) return answer;
      throw refusal;
    }
    const principal = operation.principalOf(caller);
    if (route.dataPlane ? !principal.mayReconcile : principal.tenantId === NO_SINGLE_TENANT) {
      return detail(403, route.dataPlane ? NOT_A_DATA_PLANE : TENANT_REQUIRED);
    }
    if (needsWritePermission(route) && !principal.mayWrite) return detail(403, READ_ONLY_KEY);
    const parsed = parseParameters(route.parameters, url.searchParams, path);
    // A body that is no JSON (or no body) is answered on its own; else one 422 lists parameters and body together.
    const json = route.body ? parseJsonBody(request.body, request.headers.get('content-type') ?? undefined) : { ok: true as const, value: undefined };
    if (!json.ok) return json.status === 400 ? detail(400, json.detail) : validationFailed(json.errors);
    const body = route.body ? checkedBody(route.body, json.value) : { ok: true as const, value: undefined };
    if (!parsed.ok || !body.ok) return validationFailed([...(parsed.ok ? [] : parsed.errors), ...(body.ok ? [] : body.errors)]);
    const call: RouteCall = { values: parsed.values, path, body: body.value, ifMatch: request.headers.get('if-match') ?? undefined };
    let wrote: Wrote | undefined;
    const answerOf = (result: ExecutionResult) => (wrote && 'refused' in wrote
      ? wrote.refused
      : resultAnswer(route, call, wrote?.written, url.searchParams, result, (errors) => logFailure('REST operation failed', errors)));
    const header = route.idempotent ? request.headers.get(IDEMPOTENCY_KEY) : null;
    const keyed = header === null || !idempotentWrites ? undefined : keyedLegacyWrite(idempotentWrites, {
      method, target: url.pathname + url.search, body: request.body, header, tenantId: principal.tenantId, apiKeyId: principal.apiKeyId,
    }, answerOf);
    // A header that is no key: 400.
    if (keyed && !(keyed instanceof KeyedWrite)) return keyed;
    const result = route.write
      ? await operation.write(route, caller, runRouteWrite(route, call, (outcome) => { wrote = outcome; }), keyed as KeyedWrite<unknown> | undefined)
      : await operation.execute(route, caller, route.variables!(call, undefined), keyed as KeyedWrite<unknown> | undefined);
    // Under a key, the answer was made (and kept) in its transaction, or the key's record answered.
    if (keyed?.outcome) return legacyAnswerOf(keyed.outcome, keyed.key);
    // A client gone while the operation waited for its turn: it did not run, and nothing is answered.
    if (scope.ended) return clientGone();
    // A read whose If-None-Match named its tag: it did not run either (the runner answers 304).
    if (result === NOT_MODIFIED) return notModified();
    return answerOf(result);
  } catch (error) {
    if (isDatabaseUnavailable(error)) return serviceUnavailable();
    logFailure('REST request failed', error);
    return internalServerError();
  }
}

/** A refusal's words as the original says them (GraphQL's message may add a hint). */
const legacyDetailOf = (error: GraphQLError) => (error instanceof CallerRefused ? error.legacyDetail : error.message);

/** The legacy answer to an error the GraphQL layer classified (auth, rate limit, missing, database down), if any. */
function classifiedAnswer(error: unknown): LegacyAnswer | undefined {
  if (!(error instanceof GraphQLError)) return isDatabaseUnavailable(error) ? serviceUnavailable() : undefined;
  switch (error.extensions.code) {
    case 'UNAUTHENTICATED': return detail(401, legacyDetailOf(error), { 'www-authenticate': 'APIKey' });
    case 'FORBIDDEN': return detail(403, legacyDetailOf(error));
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
function resultAnswer(
  route: RestRoute, call: RouteCall, written: unknown, query: URLSearchParams, result: ExecutionResult, logFailure: (errors: readonly GraphQLError[]) => void,
): LegacyAnswer {
  // A secret that cannot be decrypted is null in the data (masked by the route, as for a key without the
  // read-secrets scope) and already logged: the rest of the page is served (docs/decisions.md#unreadable-secrets).
  const errors = result.errors?.filter((error) => error.extensions?.code !== 'SECRET_UNREADABLE');
  if (!errors?.length) {
    const { status, body, headers } = route.respond(result.data as Record<string, unknown>, call, written);
    return legacyAnswer(status, body, headers);
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

/** A write's JSON body checked against its model (each problem's loc after `body`). */
function checkedBody(check: BodyCheck, json: unknown): ReturnType<BodyCheck> {
  const checked = check(json);
  return checked.ok ? checked : { ok: false, errors: checked.errors.map((problem) => ({ ...problem, loc: ['body', ...problem.loc] })) };
}
