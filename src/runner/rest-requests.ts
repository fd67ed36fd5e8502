// The REST door of the operation runner: the original's /v1 and /v2 paths. A read route is a fixed GraphQL
// query, parsed, validated against the schema and compiled when the service starts (a route whose document no
// longer matches the schema stops the start), as is a write route's query of what it left. Right after its route
// matches, a request takes the steps every operation takes (run-operation.ts: runOperation; a write's, runWrite,
// with its handler first), then the route maps the result to the legacy JSON. No route touches the database
// but through the handlers its GraphQL mutation runs too.
import { parse, validate, type GraphQLSchema } from 'graphql';
import { callerOf } from '../graphql/caller.ts';
import { runnableOperation, type RunnableOperation } from '../graphql/operation-documents.ts';
import type { RequestScope } from '../observability/request-scope.ts';
import type { RestRoute } from '../rest/rest-route.ts';
import type { IdempotentWrites } from '../rest/idempotent-writes.ts';
import { restAnswer, type FailureLog, type RestRouter, type RouteOperation } from '../rest/rest-router.ts';
import type { Principal } from '../modules/tenancy/authenticate.ts';
import { legacyJsonAnswer, notModifiedAnswer, type Answer } from './answer.ts';
import type { Revalidation } from './entity-tags.ts';
import type { RequestDigest } from './request-digest.ts';
import { runOperation, runWrite, type OperationSteps } from './run-operation.ts';

/**
 * A route's operation, ready to run. The limits on documents clients write (graphql-limits.ts) are not for our
 * own fixed documents: the legacy record alone takes about a hundred aliases.
 */
export function prepareRoute(schema: GraphQLSchema, route: RestRoute): RunnableOperation | undefined {
  if (route.document === undefined) return undefined;
  const document = parse(route.document);
  const invalid = validate(schema, document);
  if (invalid.length > 0) throw new AggregateError(invalid, `REST operation of ${route.path} does not match the schema`);
  const prepared = runnableOperation(document, undefined);
  // A write's answer is named as its write is (metrics, logs, traces), and only reads.
  if (route.write && (prepared.operation?.operation !== 'query' || prepared.operation.name?.value !== route.operationName)) {
    throw new Error(`REST route ${route.method} ${route.path}: its answer must be a query named ${route.operationName}`);
  }
  return prepared;
}

/** The URL a Fetch API Request of Yoga's node adapter would have (a redirect's Location is made from it). */
function fullUrl(request: RequestDigest): URL {
  try {
    return new URL(request.url, `http://${request.headers.get('host') ?? 'localhost'}`);
  } catch {
    return new URL(request.url, 'http://localhost');
  }
}

export interface RestRequestsOptions {
  steps: OperationSteps;
  router: RestRouter;
  routes: readonly RestRoute[];
  logFailure: FailureLog;
  idempotentWrites?: IdempotentWrites;
}

export class RestRequests {
  readonly #options: RestRequestsOptions;
  readonly #operations = new Map<RestRoute, RunnableOperation | undefined>();

  constructor(options: RestRequestsOptions) {
    this.#options = options;
    const { steps } = options;
    for (const route of options.routes) {
      const operation = prepareRoute(steps.schema, route);
      if (operation) steps.compiled.of({ schema: steps.schema, document: operation.document, operationName: undefined });
      this.#operations.set(route, operation);
    }
  }

  /**
   * Whether the request is the REST door's (its path's first segment is a route's), its path read as a URL
   * parser reads it (`/x/../v2/…`, `%2e%2e`, `\`), as the answer will be. A target in absolute form
   * (`GET http://host/…`) is Yoga's, which answers it 404, as it always has.
   */
  owns(url: string): boolean {
    if (url[0] !== '/') return false;
    if (!/[.%\\]/.test(url)) return this.#options.router.owns(url.split('?')[0]!);
    return URL.canParse(url, 'http://localhost') && this.#options.router.owns(new URL(url, 'http://localhost').pathname);
  }

  async answer(request: RequestDigest, scope: RequestScope, revalidation?: Revalidation): Promise<Answer> {
    const { steps, router, logFailure } = this.#options;
    const operation: RouteOperation<Principal> = {
      caller: () => callerOf(scope, request.headers, steps.services),
      principalOf: (principal) => principal,
      execute: (route, principal, variables, keyed) => {
        // One deployment's representation is tagged by the deployment's own version (entity-tags.ts).
        if (revalidation && route.deploymentRepresentation) revalidation.deploymentId = String(variables.id);
        return runOperation(steps, scope, principal, this.#operations.get(route)!, variables, { keyed, revalidation });
      },
      write: (route, principal, write, keyed) =>
        runWrite(steps, scope, principal, { name: route.operationName!, write, answer: this.#operations.get(route) }, keyed),
    };
    const { method, headers, body } = request;
    const answer = await restAnswer(router, { method, url: fullUrl(request), headers, body }, scope, operation, logFailure, this.#options.idempotentWrites);
    return revalidation?.notModified ? notModifiedAnswer(revalidation) : legacyJsonAnswer(answer);
  }
}
