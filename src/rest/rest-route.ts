// What a REST route is: its path, its parameters, the fixed GraphQL operation it runs and how the result
// becomes the legacy JSON. The router, the validation and the OpenAPI document all read these.
import type { ExecutionResult } from 'graphql';
import type { ParameterSpec, ParameterValue } from './parameters.ts';

export interface RouteCall {
  values: Record<string, ParameterValue>;
  path: Record<string, string>;
}

export interface RestRoute {
  /** OpenAPI path template, e.g. `/v2/deployments`. */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  parameters: readonly ParameterSpec[];
  /** The GraphQL operation this route runs (named, so metrics and logs can tell routes apart). */
  document: string;
  variables(call: RouteCall): Record<string, unknown>;
  /** The legacy JSON for a successful result, or a `{detail}` response for a condition found in the data. */
  respond(data: Record<string, any>, call: RouteCall): { status: number; body: unknown };
  /** JSON Schema of the 200 body (OpenAPI 3.1 speaks JSON Schema 2020-12). */
  responseSchema: Record<string, unknown>;
  /** When the route can answer 404 (besides an unknown path): what that means, for the OpenAPI document. */
  notFound?: string;
}
