// The OpenAPI 3.1 document of the REST door, generated from the route declarations (paths, parameters,
// response schemas); swagger-ui-page.ts renders it at /docs.
import type { ParameterSpec } from './parameters.ts';
import { componentSchemas } from './response-schemas.ts';
import { writeRequestSchemas } from '../modules/deployments/writes/write-request-schema.ts';
import { dataPlaneRequestSchemas } from '../modules/revisions/lifecycle/data-plane-request-schema.ts';
import { listenerRequestSchemas } from '../modules/listeners/listener-request-schema.ts';
import { needsWritePermission, type RestRoute } from './rest-route.ts';

function parameterSchema(spec: ParameterSpec): Record<string, unknown> {
  switch (spec.kind) {
    case 'int': return { type: 'integer', default: spec.default, ...(spec.ge !== undefined && { minimum: spec.ge }), ...(spec.le !== undefined && { maximum: spec.le }) };
    case 'bool': return { anyOf: [{ type: 'boolean' }, { type: 'null' }] };
    case 'literal': return { anyOf: [{ enum: [...spec.values], type: 'string' }, { type: 'null' }] };
    case 'text': return spec.in === 'path' ? { type: 'string' } : { anyOf: [{ type: 'string' }, { type: 'null' }] };
    case 'uuid': return { type: 'string', format: 'uuid' };
    case 'enum-list': return { anyOf: [{ type: 'string', description: `Comma-separated: ${spec.values.join(', ')}` }, { type: 'null' }] };
    case 'uuid-list': return { anyOf: [{ type: 'string', description: `Comma-separated UUIDs, at most ${spec.maxItems}` }, { type: 'null' }] };
    case 'uuid-array': return { type: 'array', items: { type: 'string', format: 'uuid' }, maxItems: spec.maxItems };
  }
}

const errorResponse = (description: string, schema = 'HTTPError') => ({
  description,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
});

const stringHeader = (description: string) => ({ description, schema: { type: 'string' } });

/** What a deployment's `ETag` holds (docs/decisions.md#etags-and-if-match). */
export const ETAG_HEADER = 'The deployment\'s entity tag, the same on every answer carrying its record: `"<version>-<hash>"`, or '
  + '`"<version>-masked-<hash>"` for a key that may not read secrets. Send it as `If-Match`, or as `If-None-Match` on its GET.';
/** What a read's validators hold (docs/decisions.md#conditional-requests). */
const READ_ETAG = 'The answer\'s strong entity tag; send it as `If-None-Match` to get 304 while nothing it shows has changed.';
const READ_VALIDATORS = {
  'Cache-Control': '`private, no-cache`: a client\'s own cache may keep the answer, and revalidates it at every use.',
  Vary: 'The request headers the answer depends on: `Authorization, X-Api-Key, X-Tenant-Id, Accept, Accept-Encoding`.',
};
const REPLAYED = '`true` when this is the stored answer to an earlier request under the same Idempotency-Key.';

/** An answer a route declares itself: every error body is `{"detail": "..."}` unless it says otherwise. */
function declaredResponse(status: number, response: { content?: unknown; description: string }) {
  return status >= 400 && !response.content ? { ...response, content: errorResponse('').content } : response;
}

/** The answers of a write under an Idempotency-Key, or with If-Match, besides the route's own. */
function writeResponses(route: RestRoute, declared: Record<string, { description: string }>): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  const problems = [
    ...(route.body ? ['the body is not text (`There was an error parsing the body`)'] : []),
    ...(route.idempotent ? ['the Idempotency-Key is empty, longer than 255 characters or not one value'] : []),
  ];
  if (problems.length > 0) responses[400] = errorResponse(`Bad Request: ${problems.join(', or ')}.`);
  if (route.idempotent) {
    const own = declared[409]?.description;
    responses[409] = errorResponse(`${own ? `${own} Or: a` : 'A'} request under the same Idempotency-Key is still running, or was carried out but its answer can no longer be read (read the deployment).`);
  }
  if (route.ifMatch) {
    responses[412] = { ...errorResponse('If-Match names a version the deployment no longer has; `ETag` is its current tag.'), headers: { ETag: stringHeader(ETAG_HEADER) } };
  }
  return responses;
}

const isRead = (route: RestRoute) => (route.method ?? 'GET') === 'GET';

function successResponse(route: RestRoute) {
  const headers = Object.fromEntries([
    ...Object.entries({ ...(isRead(route) && { ETag: READ_ETAG, ...READ_VALIDATORS }), ...route.successHeaders })
      .map(([name, description]) => [name, stringHeader(description)]),
    ...(route.idempotent ? [['Idempotent-Replayed', stringHeader(REPLAYED)]] : []),
  ]);
  return {
    description: route.responseSchema ? 'Successful Response' : 'Successful Response (no content)',
    ...(Object.keys(headers).length > 0 && { headers }),
    ...(route.responseSchema && { content: { 'application/json': { schema: route.responseSchema } } }),
  };
}

function operation(route: RestRoute) {
  const declared = Object.fromEntries(Object.entries(route.otherResponses ?? {})
    .map(([status, response]) => [status, declaredResponse(Number(status), response as { description: string })]));
  const responses: Record<string, unknown> = {
    [route.successStatus ?? 200]: successResponse(route),
    ...declared,
    ...writeResponses(route, declared),
    401: errorResponse('No API key in the `X-Api-Key` header (or `Authorization: Bearer`): `Not authenticated`; an unknown or revoked one: `Invalid API key`. In demo mode, `npm start` prints a key and keeps it in `.data/demo-api-key`.'),
    403: errorResponse(needsWritePermission(route)
      ? 'The key may not write (`apikey create --write` issues one that may), the tenant in X-Tenant-Id is not granted to the key, or the key has several tenants and none was chosen.'
      : 'The tenant in X-Tenant-Id is not granted to the key, or the key has several tenants and none was chosen.'),
    500: errorResponse('Internal Server Error'),
  };
  if (route.notFound) responses[404] = errorResponse(route.notFound);
  if (isRead(route)) {
    responses[304] = {
      description: 'Not Modified: `If-None-Match` names the current answer\'s tag (no body).',
      headers: { ETag: stringHeader('The tag named.'), ...Object.fromEntries(Object.entries(READ_VALIDATORS).map(([name, description]) => [name, stringHeader(description)])) },
    };
  }
  // As FastAPI does: only a route with parameters or a body can fail their validation.
  if (route.parameters.length > 0 || route.body) {
    const reused = route.idempotent ? '; or the Idempotency-Key was used with another request (`loc` `["header","Idempotency-Key"]`)' : '';
    responses[422] = errorResponse(`Validation Error: every invalid parameter${route.body ? ' and body value' : ''}, as FastAPI lists them${reused}.`, 'HTTPValidationError');
  }
  return {
    tags: [route.tag],
    summary: route.summary,
    description: route.description,
    operationId: route.operationId,
    security: [{ APIKeyHeader: [] }, { BearerKey: [] }],
    parameters: [
      ...route.parameters.map((spec) => ({
        name: spec.name, in: spec.in, required: spec.in === 'path', description: spec.description, schema: parameterSchema(spec),
      })),
      { name: 'X-Tenant-Id', in: 'header', required: false, description: 'The tenant to act for; needed when the key has several.', schema: { type: 'string', format: 'uuid' } },
      ...(route.idempotent ? [{
        name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 },
        description: 'Any unique string (a UUID): a retry with the same key and body gets the first answer instead of a second write (kept 24 hours).',
      }] : []),
      ...(isRead(route) ? [{
        name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' },
        description: 'The `ETag` of the answer you hold: 304 without a body while nothing it shows has changed.',
      }] : []),
      ...(route.ifMatch ? [{
        name: 'If-Match', in: 'header', required: false, schema: { type: 'string' },
        description: 'The `ETag` you last read: 412 if the deployment changed since, so that no one\'s change is overwritten unseen.',
      }] : []),
    ],
    ...(route.bodySchema && {
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.bodySchema}` }, ...(route.bodyExample !== undefined && { example: route.bodyExample }) } },
      },
    }),
    responses,
  };
}

export function openApiDocument(routes: readonly RestRoute[]) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Deployments gateway (legacy REST)',
      version: '1.0.0',
      description: 'The original service\'s /v1 and /v2 paths, served from the same resolvers as the GraphQL API at /graphql. '
        + 'Writes (POST, PATCH, DELETE) need a key issued with `npm run apikey -- create --write`; the demo key may write.',
    },
    paths: routes.reduce<Record<string, Record<string, unknown>>>((paths, route) => {
      (paths[route.path] ??= {})[(route.method ?? 'GET').toLowerCase()] = operation(route);
      return paths;
    }, {}),
    components: {
      schemas: { ...componentSchemas(), ...writeRequestSchemas(), ...dataPlaneRequestSchemas(), ...listenerRequestSchemas() },
      securitySchemes: {
        APIKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        BearerKey: { type: 'http', scheme: 'bearer', description: 'The same API key as `Authorization: Bearer <key>`.' },
      },
    },
  };
}
