// Composition root: wires the schema, the per-request context, the limits, the probes and the HTTP server.
// No business logic.
import { createServer, type Server } from 'node:http';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { schema } from './graphql/schema.ts';
import { graphiqlOptions } from './graphql/graphiql.ts';
import { loadGraphiqlAssets, renderGraphiqlPage } from './http/graphiql-page.ts';
import { maskUnexpectedError, UNEXPECTED_ERROR_MESSAGE } from './graphql/mask-error.ts';
import { hasVariableDefaults } from './graphql/variable-defaults.ts';
import { CompiledOperations, useCompiledOperations } from './graphql/compiled-operations.plugin.ts';
import { OperationDocuments } from './graphql/operation-documents.ts';
import { DOCUMENT_ID_PARAMETER, useTrustedDocuments } from './graphql/trusted-documents.plugin.ts';
import type { TrustedDocumentManifest } from './graphql/trusted-documents.ts';
import { useLegacyRest } from './http/legacy-rest.plugin.ts';
import { REST_ROUTES } from './rest/routes.ts';
import { IdempotencyStore } from './modules/idempotency/idempotency-store.ts';
import type { IdempotentWrites } from './rest/idempotent-writes.ts';
import { useIdempotencyKeyRefusal } from './graphql/idempotency-key-refusal.plugin.ts';
import { RestRouter } from './rest/rest-router.ts';
import { loadSwaggerUiAssets } from './http/swagger-ui-page.ts';
import { createGraphQLContext, type AppServices, type GraphQLContext } from './graphql/context.ts';
import { callerOf } from './graphql/caller.ts';
import { scopeOfServerContext, type RequestScope } from './observability/request-scope.ts';
import { GRAPHQL_LIMITS, graphqlLimitPlugins } from './limits/graphql-limits.ts';
import { queryCostLimit } from './limits/query-cost.plugin.ts';
import { OperationsAtOnce, useOperationsAtOnce } from './limits/operations-at-once.ts';
import { DEFAULT_TIMEOUTS } from './db/orm-config.ts';
import { DEFAULT_POOL_MAX } from './config.ts';
import { useAuthenticateFirst } from './graphql/authenticate-first.plugin.ts';
import { createLogger, yogaLogger, type Logger } from './observability/logger.ts';
import { Metrics } from './observability/metrics.ts';
import { useOperationMetrics } from './observability/operation-metrics.plugin.ts';
import { createRequestHandler } from './http/request-handler.ts';
import { useReplicaFallback } from './graphql/replica-fallback.plugin.ts';
import type { Tracing } from './observability/tracing.ts';
import { InFlightRequests } from './http/in-flight-requests.ts';
import { useProbes } from './http/probes.plugin.ts';
import { useRequestScope } from './http/request-scope.plugin.ts';
import { useRootPath } from './http/root-path.plugin.ts';
import { useStaticAssets } from './http/static-assets.plugin.ts';
import { usePageSecurity } from './http/page-security.plugin.ts';
import { useResponseCompression } from './http/response-compression.plugin.ts';
import { ResponseCompression } from './runner/response-compression.ts';
import { OperationRunner } from './runner/operation-runner.ts';
import { GraphQLRequests } from './runner/graphql-requests.ts';
import { RestRequests } from './runner/rest-requests.ts';
import type { OperationSteps } from './runner/run-operation.ts';
import { useEventStreams } from './http/event-streams.plugin.ts';
import { corsOptions } from './http/cors.ts';
import type { SecretDecryptionError } from './modules/secrets/secret-cipher.ts';
import { DeploymentChangeFeed } from './modules/deployments/live/deployment-change-feed.ts';
import { ApiKeySchema } from './modules/tenancy/api-key.entity.ts';
import { EmbeddedObjectStore } from './modules/storage/embedded-object-store.ts';
import { EmbeddedObjectRequests } from './modules/storage/embedded-object-requests.ts';
import { RegistryTokenRequests } from './modules/registry/token-requests.ts';

export const GRAPHQL_PATH = '/graphql';

export interface App {
  yoga: YogaServerInstance<YogaServerContext, GraphQLContext>;
  server: Server;
  metrics: Metrics;
  /** Requests being served; shutdown drains it. */
  inFlight: InFlightRequests;
  /** The open subscription streams; shutdown completes them. */
  deploymentChanges: DeploymentChangeFeed;
  /** The turns of the operations that execute at once, and who waits for one. */
  operations: OperationsAtOnce;
}

export interface AppOptions {
  /** Embedded demo mode: GraphiQL opens with this key in its headers. */
  demoApiKey?: string;
  /** Off in production: no `__schema`/`__type`, no field suggestions. Default on. */
  introspection?: boolean;
  /** Default on; always off when trusted documents are required. */
  graphiql?: boolean;
  /** Documents /graphql runs by id (allow), or runs alone (require); none: every document runs. */
  trustedDocuments?: { mode: 'allow' | 'require'; manifest: TrustedDocumentManifest };
  /** Browser origins allowed to call; none: no CORS headers (same-origin only). */
  corsOrigins?: string[];
  maxBodyBytes?: number;
  /** Responses of at least `minBytes` compressed for clients that ask (Accept-Encoding); false: none. Default from 1 KB. */
  compression?: false | { minBytes: number };
  /** Open subscription streams per API key (in this process). Default 10. */
  subscriptionsPerKey?: number;
  /** OpenTelemetry (observability/tracing.ts); none: no spans, and no hook installed. */
  tracing?: Tracing;
  /**
   * The operation runner serves the GraphQL POSTs and REST requests it accepts (runner/operation-runner.ts).
   * Default on; off: Yoga serves every request, through its envelop (the differential tests compare the two).
   */
  runner?: boolean;
  /**
   * Operations executing at once, and how long one waits for its turn before 503 (limits/operations-at-once.ts).
   * The service passes DB_POOL_MAX and DB_CONNECT_TIMEOUT_MS; default: their defaults.
   */
  operationsAtOnce?: { limit: number; waitMs: number };
  /** Default: silent (tests); the service passes its configured logger. */
  logger?: Logger;
  metrics?: Metrics;
}

/** What Yoga's plugins get from the HTTP adapter besides node:http's own objects. */
type YogaServerContext = { scope?: RequestScope };

const DEFAULT_MAX_BODY_BYTES = 100 * 1024;
export const DEFAULT_SUBSCRIPTIONS_PER_KEY = 10;
export const DEFAULT_COMPRESSION_MIN_BYTES = 1024;

/** A secret that cannot be decrypted is served as null; the operator learns of it here (log line and metric). */
const reportUnreadableSecret = (logger: Logger, metrics: Metrics) => (error: SecretDecryptionError) => {
  metrics.unreadableSecrets.inc();
  logger.error({ deploymentId: error.deploymentId, secret: error.secretName, keyFingerprint: error.keyFingerprint, reason: error.message },
    'secret value cannot be decrypted: served as null (masked on REST)');
};

export function createApp(services: AppServices, options: AppOptions = {}): App {
  const { introspection = true, corsOrigins = [], maxBodyBytes = DEFAULT_MAX_BODY_BYTES, trustedDocuments } = options;
  // GraphiQL sends the documents its user types: with only trusted documents running, it could do nothing.
  const graphiql = (options.graphiql ?? true) && trustedDocuments?.mode !== 'require';
  const { compression = { minBytes: DEFAULT_COMPRESSION_MIN_BYTES } } = options;
  const { operationsAtOnce = { limit: DEFAULT_POOL_MAX, waitMs: DEFAULT_TIMEOUTS.connectTimeoutMs } } = options;
  const logger = options.logger ?? createLogger('silent');
  const metrics = options.metrics ?? new Metrics();
  const inFlight = new InFlightRequests();
  metrics.observeRequestsInFlight(() => inFlight.size);
  if (services.decryptedValues) metrics.observeDecryptedValues(services.decryptedValues);
  const deploymentChanges = new DeploymentChangeFeed({
    notifications: services.notifications,
    streamsPerKey: options.subscriptionsPerKey ?? DEFAULT_SUBSCRIPTIONS_PER_KEY,
    revokedAmong: (apiKeyIds) => services.orm.em.fork().getRepository(ApiKeySchema).revokedAmong(apiKeyIds),
    logger,
    onMissed: (reason) => metrics.changesMissed.inc({ reason }),
  });
  metrics.observeSubscriptions(() => deploymentChanges.size);
  if (services.replicas) metrics.observeReplicas(() => services.replicas!.statuses);
  const cors = corsOptions(corsOrigins);
  const responseCompression = compression ? new ResponseCompression({ minBytes: compression.minBytes, metrics }) : undefined;
  const contextServices: AppServices = { ...services, reportUnreadableSecret: reportUnreadableSecret(logger, metrics), deploymentChanges };
  // Shared by the envelop's plugins and the operation runner, which call the same functions.
  const queryCost = queryCostLimit(GRAPHQL_LIMITS.maxCost);
  const compiledOperations = new CompiledOperations(hasVariableDefaults);
  const operations = new OperationsAtOnce(operationsAtOnce.limit, operationsAtOnce.waitMs);
  const restRouter = new RestRouter(REST_ROUTES);
  // Writes under an Idempotency-Key, claimed on the primary (docs/decisions.md#idempotency-keys).
  const idempotentWrites: IdempotentWrites = { store: new IdempotencyStore(services.cipher), em: () => services.orm.em.fork() };
  const yoga = createYoga<YogaServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    // The caller is known by now (authentication comes first, below); its outcome is in the request's scope.
    context: (initial) => {
      const caller = callerOf(scopeOfServerContext(initial), initial.request.headers, contextServices);
      return caller instanceof Promise ? caller.then((principal) => createGraphQLContext(principal, contextServices)) : createGraphQLContext(caller, contextServices);
    },
    graphiql: graphiql ? graphiqlOptions(options.demoApiKey) : false,
    // Served from this service, never a CDN: the page works offline (graphiql-page.ts).
    renderGraphiQL: renderGraphiqlPage,
    landingPage: false,
    // Yoga answers any URL that *ends with* its health endpoint (`/v2/deployments?name_contains=/health`
    // included) and cannot be switched off; a URL never contains a raw NUL, so this one never matches.
    // /health is answered by the probes below, on its exact path.
    healthCheckEndpoint: '\u0000',
    logging: yogaLogger(logger),
    cors,
    // One operation per request: a batch would multiply the cost limits below by its length.
    batching: false,
    // The request handler in front (http/request-handler.ts) already refuses bodies over maxBodyBytes, before
    // Yoga reads them; Yoga's own limit would wrap every body in a stream pipeline to count it again.
    maxRequestBodySize: false,
    // A trusted document's id may come in the body as `documentId` (GraphQL over HTTP's persisted documents).
    extraParamNames: trustedDocuments ? [DOCUMENT_ID_PARAMETER] : undefined,
    // The order of the steps for what the operation runner declines; the runner calls the same step functions
    // in the same order (runner/run-operation.ts).
    plugins: [
      useRequestScope(GRAPHQL_PATH),
      // /health, /ready and /metrics: before everything else, without authentication.
      useProbes({ orm: services.orm, metrics, inFlight, cipher: services.cipher, replicas: services.replicas }),
      // The pages for people: `/`, and the scripts and styles of GraphiQL and /docs, without authentication.
      useRootPath({ graphqlEndpoint: GRAPHQL_PATH, graphiql }),
      useStaticAssets(graphiql ? [loadGraphiqlAssets, loadSwaggerUiAssets] : [loadSwaggerUiAssets]),
      usePageSecurity(),
      // A browser can only send a form or a GET without custom headers cross-site; neither gets executed.
      useCSRFPrevention({ requestHeaders: ['x-api-key', 'authorization', 'x-graphql-yoga-csrf'] }),
      useAuthenticateFirst(contextServices),
      // After authentication: only a caller with a valid key and budget learns whether a document id is known.
      ...(trustedDocuments ? [useTrustedDocuments({ ...trustedDocuments, metrics })] : []),
      // Before the limits, so that it also counts the operations they refuse.
      useOperationMetrics(metrics),
      // A mutation under an Idempotency-Key that reaches Yoga (the runner keeps the others' answers): refused.
      useIdempotencyKeyRefusal(GRAPHQL_PATH),
      ...graphqlLimitPlugins({ introspection, queryCost }),
      // Operations run compiled (graphql-jit, each operation once), except documents whose variables have
      // default values: graphql-jit 0.8 rejects an omitted `$x: Int! = 0`, which graphql-js accepts.
      useCompiledOperations(compiledOperations),
      // After graphql-jit, whose execute it wraps: a span per operation (both doors), under the request's span.
      ...(options.tracing ? [options.tracing.operationSpans] : []),
      // After graphql-jit too: a read that failed on a replica that went away runs again on the primary.
      ...(services.replicas ? [useReplicaFallback(services.replicas)] : []),
      // After every plugin that wraps execution: an operation's turn covers all it does.
      useOperationsAtOnce(operations),
      // /openapi.json, /docs, the FastAPI 404 of unknown paths; every REST route with the runner off.
      useLegacyRest({ routes: REST_ROUTES, router: restRouter, graphqlEndpoint: GRAPHQL_PATH, idempotentWrites }),
      useEventStreams(),
      // After every plugin that answers, so that it compresses each answer (of either door, or a probe) with the
      // headers the others gave it.
      ...(responseCompression ? [useResponseCompression(responseCompression)] : []),
    ],
    // Unexpected errors reach clients as "Unexpected error."; details stay in the server log.
    maskedErrors: { isDev: false, maskError: maskUnexpectedError, errorMessage: UNEXPECTED_ERROR_MESSAGE },
  });
  const runner = (options.runner ?? true) ? operationRunner() : undefined;
  // The built-in object store's signed URLs are this service's own (an S3 store's are the store's).
  const store = services.sourceArchives?.store;
  const objects = store instanceof EmbeddedObjectStore ? new EmbeddedObjectRequests(store) : undefined;
  // The registry's realm, when this service is its token server: the push token is its credential, not an API key.
  const registryTokens = services.registry && new RegistryTokenRequests(services.registry, () => services.orm.em.fork(), services.rateLimiter);
  const handler = createRequestHandler({
    yoga: (req, res, serverContext) => yoga(req, res, serverContext), logger, metrics, maxBodyBytes, graphqlEndpoint: GRAPHQL_PATH, inFlight, tracing: options.tracing, runner, objects: [objects, registryTokens],
  });

  function operationRunner(): OperationRunner {
    const steps: OperationSteps = {
      schema, services: contextServices, compiled: compiledOperations, metrics, queryCost, operationsAtOnce: operations,
      tracer: options.tracing?.tracer,
      // As Yoga masks an execution's errors (maskedErrors above), telling its log of each unexpected one.
      maskError: (error) => {
        const masked = maskUnexpectedError(error, UNEXPECTED_ERROR_MESSAGE);
        if (masked !== error) yoga.logger.error(error);
        return masked;
      },
    };
    // A document is judged by the envelop's own parse and validation, with every plugin's rules. Of the request,
    // those read only its method (Yoga refuses a mutation sent by GET; the runner serves POSTs) and the
    // operation's name (Yoga's parse refuses one the document does not have).
    const documents = new OperationDocuments((operationName) => yoga.getEnveloped({ request: { method: 'POST' } as Request, params: { query: '', operationName } }));
    return new OperationRunner({
      graphql: new GraphQLRequests({ steps, documents, graphqlEndpoint: GRAPHQL_PATH, trustedDocuments, fetchAPI: yoga.fetchAPI, idempotentWrites }),
      rest: new RestRequests({
        steps, router: restRouter, routes: REST_ROUTES, idempotentWrites, logFailure: (message, detail) => yoga.logger.error(message, detail),
      }),
      answerHeaders: { cors, compression: responseCompression },
    });
  }
  const server = createServer(handler);
  // A client that trickles its request (slowloris) cannot hold a connection for long: its headers within 10 s,
  // the rest within REQUEST_DEADLINE_MS, which the request handler keeps per request (an upload to the
  // built-in object store may take longer: Node's own requestTimeout would cut it off).
  server.headersTimeout = 10_000;
  server.requestTimeout = 0;
  return { yoga, server, metrics, inFlight, deploymentChanges, operations };
}
