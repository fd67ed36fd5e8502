// The REST door: a Yoga plugin that answers the legacy /v1 and /v2 paths. Each route runs its fixed GraphQL
// operation through Yoga's own envelop (the same context, authentication, loaders, error masking and any
// plugin added later), then maps the result to the legacy JSON. No route touches the database itself.
// A route runs in its operation's turn (limits/operations-at-once.ts), taken once the caller is authenticated
// and before the envelop, the context or the result of the route is made.
import { GraphQLError, validate, type ExecutionResult } from 'graphql';
import { Response } from '@whatwg-node/fetch';
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import type { GraphQLContext } from '../graphql/context.ts';
import { isDatabaseUnavailable } from '../db/connection-loss.ts';
import type { OperationsAtOnce } from '../limits/operations-at-once.ts';
import { currentRequestScope } from '../observability/request-scope.ts';
import {
  detail, internalServerError, jsonResponse, methodNotAllowed, notFoundRoute, serviceUnavailable, validationFailed,
} from './legacy-responses.ts';
import { openApiDocument } from './openapi.ts';
import { parseParameters } from './parameters.ts';
import { pydanticError } from './pydantic-errors.ts';
import type { RestRoute, RouteCall } from './rest-route.ts';
import { swaggerUiPage } from './swagger-ui-page.ts';

interface CompiledRoute {
  route: RestRoute;
  pattern: RegExp;
}

const compile = (route: RestRoute): CompiledRoute => ({
  route,
  pattern: new RegExp(`^${route.path.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`),
});

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

function match(routes: CompiledRoute[], pathname: string): { route: RestRoute; path: Record<string, string> } | undefined {
  for (const { route, pattern } of routes) {
    const found = pattern.exec(pathname);
    if (found) return { route, path: { ...found.groups } };
  }
  return undefined;
}

export interface LegacyRestOptions {
  routes: RestRoute[];
  graphqlEndpoint: string;
  /** Authenticates the request and spends its budget (once per request, as the context does); rejects a refused one. */
  authenticate: (request: Request) => Promise<void>;
  operationsAtOnce: OperationsAtOnce;
}

/**
 * Whether a request is a read of the REST door's paths (their first segment, `/v2/...`), which waits for its
 * turn at the HTTP door; another path of that segment waits too, and is answered 404 in its turn.
 */
export function isRestRead(routes: RestRoute[]): (req: { method?: string; url?: string }) => boolean {
  const segments = new Set(routes.map((route) => route.path.split('/')[1]));
  return ({ method, url = '' }) => (method === 'GET' || method === 'HEAD') && segments.has(url.split('/')[1] ?? '');
}

export function useLegacyRest({ routes, graphqlEndpoint, authenticate, operationsAtOnce }: LegacyRestOptions): Plugin<Record<string, unknown>, Record<string, unknown>, GraphQLContext> {
  const compiled = routes.map(compile);
  let yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>;
  let openApi: string | undefined;
  const validated = new WeakSet<RestRoute>();

  /** The route's answer: a refused caller's at once, anyone else's in the operation's turn. */
  async function answer(route: RestRoute, path: Record<string, string>, request: Request, url: URL, serverContext: object): Promise<Response> {
    try {
      await authenticate(request);
    } catch (error) {
      return classifiedOrThrown(error);
    }
    // In the turn reserved at the HTTP door (http/request-handler.ts), or one of its own.
    return operationsAtOnce.run(() => runRoute(route, path, request, url, serverContext), currentRequestScope()?.turn);
  }

  async function runRoute(route: RestRoute, path: Record<string, string>, request: Request, url: URL, serverContext: object): Promise<Response> {
    const enveloped = yoga.getEnveloped({ ...serverContext, request, params: { query: route.document } });
    let contextValue: unknown;
    try {
      contextValue = await enveloped.contextFactory();
    } catch (error) {
      return classifiedOrThrown(error);
    }
    const parsed = parseParameters(route.parameters, url.searchParams, path);
    if (!parsed.ok) return validationFailed(parsed.errors);
    const call: RouteCall = { values: parsed.values, path };

    const document = enveloped.parse(route.document);
    // Our own fixed documents are checked against the schema once. The limits on documents clients write
    // (graphql-limits.ts) are not for them: the legacy record alone takes about a hundred aliases.
    if (!validated.has(route)) {
      const invalid = validate(enveloped.schema, document);
      if (invalid.length > 0) throw new AggregateError(invalid, `REST operation of ${route.path} does not match the schema`);
      validated.add(route);
    }
    const result = (await enveloped.execute({
      schema: enveloped.schema, document, contextValue, variableValues: route.variables(call),
    })) as ExecutionResult;
    // A secret that cannot be decrypted is null in the data (masked by the route, as for a key without the
    // read-secrets scope) and already logged: the rest of the page is served (docs/decisions.md#unreadable-secrets).
    const errors = result.errors?.filter((error) => error.extensions?.code !== 'SECRET_UNREADABLE');
    if (errors?.length) return executionFailure(errors, call, url);
    const { status, body } = route.respond(result.data as Record<string, unknown>, call);
    return jsonResponse(status, body);
  }

  /** The legacy answer to an error the GraphQL layer classified (auth, missing, database down), if any. */
  function classified(error: unknown): Response | undefined {
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

  /** The legacy answer to a refusal (auth, rate limit, database down) before execution; anything else is thrown on. */
  function classifiedOrThrown(error: unknown): Response {
    const response = classified(error);
    if (response) return response;
    throw error;
  }

  function executionFailure(errors: readonly GraphQLError[], call: RouteCall, url: URL): Response {
    const [first] = errors;
    const response = classified(first);
    if (response) return response;
    if (first?.extensions.code === 'BAD_USER_INPUT') {
      const parameter = parameterOfArgument(String(first!.extensions.argument));
      const input = url.searchParams.getAll(parameter).at(-1) ?? call.path[parameter] ?? null;
      const problem = first!.message.replace(/^Invalid argument "[^"]+": /, '').replace(/\.$/, '');
      return validationFailed([pydanticError.valueError(['query', parameter], input as string, problem)]);
    }
    yoga.logger.error('REST operation failed', errors);
    return internalServerError();
  }

  async function handle(request: Request, url: URL, serverContext: object): Promise<Response> {
    const isRead = request.method === 'GET' || request.method === 'HEAD';
    const scope = currentRequestScope();
    if (url.pathname === '/openapi.json' || url.pathname === '/docs') {
      if (scope) scope.route = url.pathname;
      if (!isRead) return methodNotAllowed('GET, HEAD');
      if (url.pathname === '/docs') return new Response(await swaggerUiPage('/openapi.json'), { headers: { 'content-type': 'text/html; charset=utf-8' } });
      openApi ??= JSON.stringify(openApiDocument(routes));
      return new Response(openApi, { headers: { 'content-type': 'application/json' } });
    }
    // uvicorn hands Starlette the percent-decoded path: `/v2/deployment%73` is `/v2/deployments`.
    const pathname = decodePath(url.pathname);
    const found = match(compiled, pathname);
    if (!found) {
      // Starlette redirects a path with a trailing slash to the route without it.
      if (pathname.length > 1 && pathname.endsWith('/') && match(compiled, pathname.slice(0, -1))) {
        const location = new URL(url);
        location.pathname = url.pathname.slice(0, -1);
        return new Response(null, { status: 307, headers: { location: location.toString() } });
      }
      return notFoundRoute();
    }
    if (scope) scope.route = found.route.path;
    if (!isRead) return methodNotAllowed('GET, HEAD');
    try {
      return await answer(found.route, found.path, request, url, serverContext);
    } catch (error) {
      if (isDatabaseUnavailable(error)) return serviceUnavailable();
      yoga.logger.error('REST request failed', error);
      return internalServerError();
    }
  }

  return {
    onYogaInit({ yoga: instance }) {
      yoga = instance as unknown as YogaServerInstance<Record<string, unknown>, GraphQLContext>;
    },
    async onRequest({ request, url, endResponse, serverContext }) {
      if (url.pathname === graphqlEndpoint) return;
      const response = await handle(request, url, serverContext);
      // HEAD answers like GET, without a body.
      endResponse(request.method === 'HEAD' ? new Response(null, { status: response.status, headers: response.headers }) : response);
    },
  };
}

/** The REST parameter a GraphQL argument came from (`filter.nameContains` → `name_contains`). */
function parameterOfArgument(argument: string): string {
  const special: Record<string, string> = { 'filter.ids': 'deployment_ids', 'filter.statuses': 'status', integrationId: 'integration_id' };
  return special[argument] ?? argument.replace(/^filter\./, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}


const httpHeadersOf = (error: GraphQLError): Record<string, string> =>
  ((error.extensions.http as { headers?: Record<string, string> } | undefined)?.headers ?? {});
