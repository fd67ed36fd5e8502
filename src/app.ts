// Composition root: wires the schema, the per-request context, the limits, the probes and the HTTP server.
// No business logic.
import { createServer, type Server } from 'node:http';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { schema } from './graphql/schema.ts';
import { graphiqlOptions } from './graphql/graphiql.ts';
import { loadGraphiqlAssets, renderGraphiqlPage } from './graphql/graphiql-page.ts';
import { maskUnexpectedError, UNEXPECTED_ERROR_MESSAGE } from './graphql/mask-error.ts';
import { hasVariableDefaults } from './graphql/variable-defaults.ts';
import { CompiledOperations, useCompiledOperations } from './graphql/compiled-operations.plugin.ts';
import { PreparedOperations, ValidatedDocuments } from './graphql/prepared-operations.ts';
import { DOCUMENT_ID_PARAMETER, useTrustedDocuments } from './graphql/trusted-documents.plugin.ts';
import type { TrustedDocumentManifest } from './graphql/trusted-documents.ts';
import { isRestRead, useLegacyRest } from './rest/rest-plugin.ts';
import { REST_ROUTES } from './rest/routes.ts';
import { loadSwaggerUiAssets } from './rest/swagger-ui-page.ts';
import { authenticateFirst, createGraphQLContext, type AppServices, type GraphQLContext } from './graphql/context.ts';
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
import { ResponseCompression, useResponseCompression } from './http/response-compression.plugin.ts';
import { plainGraphQLRequests } from './http/plain-graphql-requests.ts';
import { useEventStreams } from './http/event-streams.plugin.ts';
import { corsOptions } from './http/cors.ts';
import type { SecretDecryptionError } from './modules/secrets/secret-cipher.ts';
import { DeploymentChangeFeed } from './modules/deployments/live/deployment-change-feed.ts';
import { ApiKeySchema } from './modules/tenancy/api-key.entity.ts';

export const GRAPHQL_PATH = '/graphql';

export interface App {
  yoga: YogaServerInstance<Record<string, never>, GraphQLContext>;
  server: Server;
  metrics: Metrics;
  /** Requests being served; shutdown drains it. */
  inFlight: InFlightRequests;
  /** The open subscription streams; shutdown completes them. */
  deploymentChanges: DeploymentChangeFeed;
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
   * `POST /graphql` with a JSON body served without Yoga's Fetch API adapter (http/plain-graphql-requests.ts).
   * Default on; off: Yoga serves every request (the differential tests compare the two).
   */
  plainGraphQLRequests?: boolean;
  /**
   * Operations executing at once, and how long one waits for its turn before 503 (limits/operations-at-once.ts).
   * The service passes DB_POOL_MAX and DB_CONNECT_TIMEOUT_MS; default: their defaults.
   */
  operationsAtOnce?: { limit: number; waitMs: number };
  /** Default: silent (tests); the service passes its configured logger. */
  logger?: Logger;
  metrics?: Metrics;
}

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
  // Shared by the envelop's plugins and the prepared operations, which call the same functions.
  const queryCost = queryCostLimit(GRAPHQL_LIMITS.maxCost);
  const compiledOperations = new CompiledOperations(hasVariableDefaults);
  const operations = new OperationsAtOnce(operationsAtOnce.limit, operationsAtOnce.waitMs);
  const validatedDocuments = new ValidatedDocuments();
  const yoga = createYoga<Record<string, never>, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    context: ({ request }) => createGraphQLContext(request, contextServices),
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
      useAuthenticateFirst(services),
      // After authentication: only a caller with a valid key and budget learns whether a document id is known.
      ...(trustedDocuments ? [useTrustedDocuments({ ...trustedDocuments, metrics })] : []),
      // Before the limits, so that it also counts the operations they refuse.
      useOperationMetrics(metrics),
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
      // The legacy /v1 and /v2 paths, /openapi.json and /docs: fixed operations through this same Yoga.
      useLegacyRest({
        routes: REST_ROUTES, graphqlEndpoint: GRAPHQL_PATH, operationsAtOnce: operations,
        authenticate: async (request) => authenticateFirst(request, contextServices),
      }),
      useEventStreams(),
      // After every plugin that answers, so that it compresses each answer (of either door, or a probe) with the
      // headers the others gave it.
      ...(responseCompression ? [useResponseCompression(responseCompression)] : []),
      // Last: remembers each document that passed every validation rule above, for the prepared operations.
      validatedDocuments.plugin(),
    ],
    // Unexpected errors reach clients as "Unexpected error."; details stay in the server log.
    maskedErrors: { isDev: false, maskError: maskUnexpectedError, errorMessage: UNEXPECTED_ERROR_MESSAGE },
  });
  // Tracing and read replicas wrap execution in plugins of their own: with either on, the envelop runs everything.
  const preparedOperations = options.tracing || services.replicas ? undefined : new PreparedOperations({
    schema, documents: validatedDocuments, compiled: compiledOperations, metrics, queryCost, operationsAtOnce: operations,
    authenticate: (request) => authenticateFirst(request, contextServices),
    createContext: (request) => createGraphQLContext(request, contextServices),
    // As Yoga masks an execution's errors (maskedErrors below), telling its log of each unexpected one.
    maskError: (error) => {
      const masked = maskUnexpectedError(error, UNEXPECTED_ERROR_MESSAGE);
      if (masked !== error) yoga.logger.error(error);
      return masked;
    },
  });
  const plainGraphQL = (options.plainGraphQLRequests ?? true)
    ? plainGraphQLRequests({ yoga, graphqlEndpoint: GRAPHQL_PATH, cors, compression: responseCompression, trustedDocuments, preparedOperations })
    : undefined;
  const handler = createRequestHandler({
    yoga, logger, metrics, maxBodyBytes, graphqlEndpoint: GRAPHQL_PATH, inFlight, tracing: options.tracing, plainGraphQL,
    turnsAtTheDoor: { admits: isRestRead(REST_ROUTES), authenticate: async (headers) => authenticateFirst({ headers }, contextServices), operations },
  });
  const server = createServer(handler);
  // A client that trickles its request (slowloris) cannot hold a connection for long.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  return { yoga, server, metrics, inFlight, deploymentChanges };
}
