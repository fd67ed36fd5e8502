// Yoga's side of the REST door: /openapi.json, /docs, the FastAPI 404 of any path nobody else answers, and the
// legacy routes of what reaches Yoga (a CORS preflight without CORS configured: 405). With the operation runner
// off (AppOptions.runner), it serves every route by running its fixed operation through Yoga's own envelop
// (its context factory and execute, with every plugin): the reference test/rest-runner.test.ts compares the
// runner's answers with. A write route's handler runs in the envelop's context first (under a key, in its
// transaction), then its query through the envelop, as the answer's only execution: the metrics time that
// query, where the runner times the write as a mutation of the route's name. Routing, the writes' steps and
// the legacy answers are the functions the runner calls (rest/rest-router.ts).
import { Response } from '@whatwg-node/fetch';
import type { DocumentNode, ExecutionResult, GraphQLError } from 'graphql';
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import { readFromPrimary, useTransaction, type GraphQLContext } from '../graphql/context.ts';
import { maskUnexpectedError, UNEXPECTED_ERROR_MESSAGE } from '../graphql/mask-error.ts';
import { scopeOfServerContext } from '../observability/request-scope.ts';
import type { LegacyAnswer } from '../rest/legacy-responses.ts';
import { openApiDocument } from '../rest/openapi.ts';
import type { RestRoute } from '../rest/rest-route.ts';
import type { IdempotentWrites } from '../rest/idempotent-writes.ts';
import { isRead, readOnly, restAnswer, type RestRouter, type RouteOperation } from '../rest/rest-router.ts';
import { swaggerUiPage } from './swagger-ui-page.ts';
import { legacyJsonAnswer } from '../runner/answer.ts';
import { prepareRoute } from '../runner/rest-requests.ts';
import { bodyBytes } from './body-bytes.ts';
import type { KeyedWrite } from '../modules/idempotency/keyed-write.ts';

export interface LegacyRestOptions {
  routes: readonly RestRoute[];
  router: RestRouter;
  graphqlEndpoint: string;
  idempotentWrites?: IdempotentWrites;
}

function responseOf(legacy: LegacyAnswer): Response {
  const { status, statusText, headers, body } = legacyJsonAnswer(legacy);
  return new Response(body === null ? null : bodyBytes(body as string), { status, statusText, headers });
}

export function useLegacyRest({ routes, router, graphqlEndpoint, idempotentWrites }: LegacyRestOptions): Plugin<Record<string, unknown>, Record<string, unknown>, GraphQLContext> {
  let yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>;
  let openApi: string | undefined;
  const documents = new Map<RestRoute, DocumentNode>();
  const logFailure = (message: string, detail: unknown) => yoga.logger.error(message, detail);

  /** A route's operation run by the envelop: its context factory authenticates (or refuses) the caller. */
  const throughEnvelop = (request: Request, serverContext: object): RouteOperation<unknown> => {
    let enveloped: ReturnType<typeof yoga.getEnveloped>;
    return {
      caller: (route) => {
        enveloped = yoga.getEnveloped({ ...serverContext, request, params: { query: route.document } });
        return enveloped.contextFactory();
      },
      principalOf: (contextValue) => (contextValue as GraphQLContext).principal,
      execute: (route, contextValue, variableValues, keyed) => inKeyed(contextValue as GraphQLContext, keyed, () => execute(route, contextValue, variableValues)),
      write: (route, contextValue, write, keyed) => inKeyed(contextValue as GraphQLContext, keyed, async () => {
        const wrote = await write(contextValue as GraphQLContext);
        if ('result' in wrote) return wrote.result;
        readFromPrimary(contextValue as GraphQLContext);
        return execute(route, contextValue, wrote.variables);
      }),
    };

    async function execute(route: RestRoute, contextValue: unknown, variableValues: Record<string, unknown> | undefined): Promise<ExecutionResult> {
      let document = documents.get(route);
      if (!document) documents.set(route, (document = prepareRoute(enveloped.schema, route)!.document));
      return (await enveloped.execute({ schema: enveloped.schema, document, contextValue, variableValues })) as ExecutionResult;
    }
  };

  /** `run`, or under an Idempotency-Key in the key's transaction, its errors masked there. */
  function inKeyed(context: GraphQLContext, keyed: KeyedWrite<unknown> | undefined, run: () => Promise<ExecutionResult>): Promise<ExecutionResult> {
    if (!keyed) return run();
    // The envelop's turn is taken inside the key's transaction here (a reference for tests, not a server).
    return keyed.run(async (transaction) => {
      useTransaction(context, transaction);
      const result = await run();
      return result.errors ? { ...result, errors: result.errors.map((error) => maskUnexpectedError(error, UNEXPECTED_ERROR_MESSAGE) as GraphQLError) } : result;
    });
  }

  async function handle(request: Request, url: URL, serverContext: object): Promise<Response> {
    const scope = scopeOfServerContext(serverContext);
    if (url.pathname === '/openapi.json' || url.pathname === '/docs') {
      scope.route = url.pathname;
      if (!isRead(request.method)) return responseOf(readOnly());
      if (url.pathname === '/docs') return new Response(await swaggerUiPage('/openapi.json'), { headers: { 'content-type': 'text/html; charset=utf-8' } });
      openApi ??= JSON.stringify(openApiDocument(routes));
      return new Response(openApi, { headers: { 'content-type': 'application/json' } });
    }
    // Only a request that says it has a body is read: the node adapter has already read an empty one's stream.
    const declared = (request.headers.get('content-length') ?? '0') !== '0' || request.headers.has('transfer-encoding');
    const body = declared ? Buffer.from(await request.arrayBuffer()) : undefined;
    const restRequest = { method: request.method, url, headers: request.headers, body: body?.length ? body : undefined };
    return responseOf(await restAnswer(router, restRequest, scope, throughEnvelop(request, serverContext), logFailure, idempotentWrites));
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
