// What a REST route is: its path, its parameters, what it runs and how the result becomes the legacy JSON. A
// read runs its fixed GraphQL query. A write runs the handler its GraphQL mutation runs, with the body the door
// validated, and then (if its answer shows a record) its fixed GraphQL query of what the write left
// (rest-router.ts, runRouteWrite). The router, the validation and the OpenAPI document all read these.
import type { GraphQLContext } from '../graphql/context.ts';
import type { ParameterSpec, ParameterValue } from './parameters.ts';
import type { ValueProblem } from '../modules/deployments/writes/write-problems.ts';

export interface RouteCall {
  values: Record<string, ParameterValue>;
  path: Record<string, string>;
  /** A write's body, validated (unknown keys dropped). */
  body?: unknown;
  /** The request's `If-Match`, for a write that honours it. */
  ifMatch?: string;
}

/** A write's body as FastAPI validates it: the value, or every problem (loc relative to the body). */
export type BodyCheck = (json: unknown) => { ok: true; value: unknown } | { ok: false; errors: ValueProblem[] };

/** What a route answers with: a status, the legacy JSON, and its headers (`ETag`, `Location`). */
export interface RouteAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** `Written`: what a write route's `write` returns, which its answer's variables and `respond` read. */
export interface RestRoute<Written = any> {
  /** OpenAPI path template, e.g. `/v2/deployments`. */
  path: string;
  /** GET when not given (which answers HEAD too). */
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /**
   * A data plane's route: it needs a key issued with `--reconcile` (not the write permission), and a key of
   * several tenants may call it without naming one (it acts for all of them).
   */
  dataPlane?: boolean;
  /** The request body's validation, for a route that takes one (its OpenAPI schema is `bodySchema`). */
  body?: BodyCheck;
  bodySchema?: string;
  /** A body that works as it is: what Swagger UI's "Try it out" starts with (the schema's own would not). */
  bodyExample?: unknown;
  /** Whether a retry under the same `Idempotency-Key` gets the first answer (docs/decisions.md#idempotency-keys). */
  idempotent?: boolean;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  parameters: readonly ParameterSpec[];
  /**
   * A write route's write: the handler its GraphQL mutation runs, given the request as the door validated it,
   * in the operation's context (its turn; under an Idempotency-Key, the key's transaction). It throws the
   * domain's refusals (refusal-answers.ts answers them) and its GraphQL errors, as the mutation does.
   */
  write?(ctx: GraphQLContext, call: RouteCall): Promise<Written>;
  /**
   * What metrics, logs and traces call a write route's operation (a mutation of this name), whether or not
   * it has a document; a read's is its document's name.
   */
  operationName?: string;
  /**
   * The GraphQL query this route runs: a read's, or what a write's answer shows of what it left (named as the
   * route's operation); none for a write whose answer reads nothing.
   */
  document?: string;
  /** The document's variables; a write's, of what it wrote. */
  variables?(call: RouteCall, written: Written): Record<string, unknown>;
  /**
   * The legacy JSON for a successful result (`data`: the document's; `written`: what a write returned), or a
   * `{detail}` response for a condition found in the data.
   */
  respond(data: Record<string, any>, call: RouteCall, written: Written): RouteAnswer;
  /** JSON Schema of the success body (OpenAPI 3.1 speaks JSON Schema 2020-12); null: none (204). */
  responseSchema: Record<string, unknown> | null;
  /** The success status, when not 200. */
  successStatus?: number;
  /** Headers of the success answer and what they hold, for the OpenAPI document (`ETag`, `Location`). */
  successHeaders?: Record<string, string>;
  /** Answers besides success and the common errors, for the OpenAPI document (`409: {...}`). */
  otherResponses?: Record<number, unknown>;
  /** Whether the route honours `If-Match` (412 when the deployment changed since). */
  ifMatch?: boolean;
  /**
   * A read whose answer is one deployment's representation (its variables' `id`): its ETag is the deployment's
   * own tag, as the writes' answers carry it, not the tenant's data version's (runner/entity-tags.ts).
   */
  deploymentRepresentation?: boolean;
  /** When the route can answer 404 (besides an unknown path): what that means, for the OpenAPI document. */
  notFound?: string;
}

/**
 * Whether a route needs a key with the write permission: every route that writes, but a data plane's (which
 * needs `--reconcile`). Made from the route's own `write`, since its handler does not check it again.
 */
export const needsWritePermission = (route: RestRoute): boolean => route.write !== undefined && !route.dataPlane;
