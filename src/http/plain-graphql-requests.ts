// The plain GraphQL request, `POST /graphql` with a JSON body, as frontend apps send it, served on node:http
// without Yoga's Fetch API adapter. Yoga answers every request through Request and Response objects, its
// request-parsing and result-processing hooks and each plugin's onRequest and onResponse; for a small answer
// that is most of its cost (docs/performance.md#the-plain-graphql-request). This path gives the operation to
// Yoga's own `getResultForParams`, as Yoga does: the onParams plugins (authentication first), then the envelop
// (parse and validation caches, limits, cost, operation metrics, error masking, graphql-jit, replica
// fallback), so the GraphQL semantics are Yoga's by construction; a document the envelop has validated before
// runs prepared, through the same functions without the envelop's hooks (graphql/prepared-operations.ts).
// What it does itself is what Yoga's HTTP layer would do for this one shape of request: read the parameters,
// pick the media type, turn the result into status, headers and body (Yoga's processRegularResult), add the
// CORS and rate-limit headers and compress.
//
// A request of any other shape goes to Yoga (its body, already read, with it): an Accept header that only a
// streamed answer (multipart, event stream) or none satisfies, another content type, a parameter other than
// query, variables, operationName, extensions and (trusted documents on) documentId, a body without a
// document (a persisted-query hash alone), what the trusted-documents plugin would refuse, a GET.
// test/plain-graphql-requests.test.ts sends the same requests to a service with and one without this path and
// compares status, headers, body and what each counted; test/tracing.test.ts compares their spans.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { processRegularResult, type GraphQLParams, type YogaServerInstance } from 'graphql-yoga';
import { getCORSHeadersByRequestAndOptions, type CORSOptions } from '@whatwg-node/server';
import type { ExecutionResult } from 'graphql';
import { rateLimitHeaders } from '../graphql/errors.ts';
import { currentRequestScope } from '../observability/request-scope.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import type { ResponseCompression } from './response-compression.plugin.ts';
import { DOCUMENT_ID_PARAMETER } from '../graphql/trusted-documents.plugin.ts';
import type { TrustedDocumentManifest } from '../graphql/trusted-documents.ts';
import type { PreparedOperations } from '../graphql/prepared-operations.ts';
import { writeAtEndOfTurn } from './writes-at-end-of-turn.ts';
import { bodyBytes } from './body-bytes.ts';
import { NodeRequestHeaders } from './node-request-headers.ts';

/**
 * The media type Yoga answers a single (not streamed) result with, for an Accept header; undefined where Yoga
 * would stream it (multipart/mixed, text/event-stream) or refuse it (406). Yoga's choice, as its result
 * processors make it (graphql-yoga's use-result-processor.js and accept.js): q values are ignored, a type with
 * a charset other than utf-8 does not count, and the first type in the client's order that
 * application/graphql-response+json or application/json matches decides, application/json where both do (a
 * wildcard, `application/*`). A missing or empty header is the wildcard of every type.
 */
function regularMediaType(accept: string | undefined): string | undefined {
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [type = '', ...params] = entry.split(';');
    const charset = params.find((param) => param.includes('charset=')) ?? 'charset=utf-8';
    if (charset !== 'charset=utf-8') continue;
    const [group, subtype] = type.split('/');
    if (group !== '*' && group !== 'application') continue;
    if (subtype === '*' || subtype === 'json') return 'application/json';
    if (subtype === 'graphql-response+json') return 'application/graphql-response+json';
  }
  return undefined;
}

/** Accept headers seen, and the media type each gets: clients send a handful of them, again and again. */
const mediaTypeByAccept = new Map<string, string | undefined>();
const REMEMBERED_ACCEPT_HEADERS = 64;

/** regularMediaType, remembered for the first REMEMBERED_ACCEPT_HEADERS Accept headers (its parsing was 2% of a `{ __typename }`). */
function rememberedMediaType(accept: string | undefined): string | undefined {
  if (accept === undefined) return regularMediaType(accept);
  if (mediaTypeByAccept.has(accept)) return mediaTypeByAccept.get(accept);
  const mediaType = regularMediaType(accept);
  if (mediaTypeByAccept.size < REMEMBERED_ACCEPT_HEADERS) mediaTypeByAccept.set(accept, mediaType);
  return mediaType;
}

const JSON_CONTENT_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

const PARAMETERS = new Set(['query', 'variables', 'operationName', 'extensions', DOCUMENT_ID_PARAMETER]);

// A subscription is answered as a stream (or refused) by Yoga's result processors. Its document holds the
// word, so a document that does not cannot be one; one that does (a field of that name) just goes to Yoga.
const MAY_SUBSCRIBE = /\bsubscription\b/;

export interface PlainGraphQLRequestOptions {
  yoga: YogaServerInstance<Record<string, never>, GraphQLContext>;
  graphqlEndpoint: string;
  /** Yoga's CORS options (false: none configured), for the headers an answer to an Origin carries. */
  cors: CORSOptions;
  compression: ResponseCompression | undefined;
  /** TRUSTED_DOCUMENTS, when on: a body may name a document of the manifest by its id instead of sending it. */
  trustedDocuments?: { mode: 'allow' | 'require'; manifest: TrustedDocumentManifest };
  /** Documents the envelop has validated run without it (graphql/prepared-operations.ts); none: all through it. */
  preparedOperations?: PreparedOperations;
}

export interface PlainGraphQLRequests {
  /**
   * From the request line and headers alone: the media type this path would answer with once the body is read,
   * or undefined where it cannot serve the request.
   */
  mayServe(req: IncomingMessage): string | undefined;
  /** Serves the request and resolves true, or resolves false without having done anything (Yoga serves it). */
  serve(req: IncomingMessage, res: ServerResponse, body: Buffer, mediaType: string): Promise<boolean>;
}

/** Copies header values under lower-case names, as node:http's writeHead takes them here. */
function setHeaders(into: Record<string, string>, from: Iterable<[string, string]>): void {
  for (const [name, value] of from) into[name.toLowerCase()] = value;
}

interface Answer {
  status: number;
  statusText: string | undefined;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string | Promise<string>;
}

/**
 * The answer Yoga's processRegularResult makes of a single result. One without errors and without HTTP
 * extensions is always 200, the media type and the result stringified (by the compiled operation's own
 * stringify where it has one), so it is made directly; any other goes through processRegularResult, which
 * takes its status and headers from the errors (401, 429, 400 for graphql-response+json...).
 */
function answerOf(result: ExecutionResult & { stringify?: (result: ExecutionResult) => string }, mediaType: string, fetchAPI: YogaServerInstance<Record<string, never>, GraphQLContext>['fetchAPI']): Answer {
  if (!result.errors?.length && !result.extensions?.http) {
    return { status: 200, statusText: undefined, headers: { 'content-type': `${mediaType}; charset=utf-8` }, body: (result.stringify ?? JSON.stringify)(result) };
  }
  const response = processRegularResult(result, fetchAPI, mediaType);
  const headers: Record<string, string> = {};
  setHeaders(headers, response.headers);
  return { status: response.status, statusText: response.statusText, headers, body: response.text() };
}

interface PlainParameters {
  params: GraphQLParams;
  /** The document's text: the body's, or the trusted document's it names by `documentId`. */
  document: string;
  documentId: string | undefined;
}

/** The parameters of a body of exactly this path's shape, or undefined. */
function plainParameters(body: Buffer, trusted: PlainGraphQLRequestOptions['trustedDocuments']): PlainParameters | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const params = parsed as Record<string, unknown>;
  for (const name in params) if (!PARAMETERS.has(name)) return undefined;
  const { query, variables, operationName, extensions, documentId } = params;
  // A trusted document: only one of the manifest's, named in place of a document. The trusted-documents plugin
  // runs it and refuses nothing here; what it refuses (unknown ids, documents sent in full where only trusted
  // ones run) Yoga answers, and the plugin counts once.
  let document = query;
  if (documentId !== undefined) {
    if (!trusted || query !== undefined || typeof documentId !== 'string') return undefined;
    document = trusted.manifest.get(documentId);
  } else if (trusted?.mode === 'require') {
    return undefined;
  }
  if (typeof document !== 'string' || MAY_SUBSCRIBE.test(document)) return undefined;
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return undefined;
  if (operationName != null && typeof operationName !== 'string') return undefined;
  // Extensions go to the plugins as they are (Apollo Client 4 names itself in them). The only one of ours that
  // reads them, the trusted-documents plugin, reads a persisted-query hash in a body with neither a document
  // nor a document id: such a body has gone to Yoga above.
  if (extensions != null && (typeof extensions !== 'object' || Array.isArray(extensions))) return undefined;
  return { params: params as GraphQLParams, document, documentId: documentId as string | undefined };
}

export function plainGraphQLRequests({ yoga, graphqlEndpoint, cors, compression, trustedDocuments, preparedOperations }: PlainGraphQLRequestOptions): PlainGraphQLRequests {
  const url = `http://localhost${graphqlEndpoint}`;
  return {
    mayServe(req) {
      const { headers } = req;
      const plainShape = req.method === 'POST' && req.url === graphqlEndpoint
        && headers['content-length'] !== undefined && headers['transfer-encoding'] === undefined
        && JSON_CONTENT_TYPES.has(headers['content-type']?.toLowerCase() ?? '');
      return plainShape ? rememberedMediaType(headers.accept) : undefined;
    },

    async serve(req, res, body, mediaType) {
      const plain = plainParameters(body, trustedDocuments);
      if (!plain) return false;
      const { params, document, documentId } = plain;
      const scope = currentRequestScope();
      if (scope) scope.route = graphqlEndpoint;
      const prepared = preparedOperations?.find(document, params.operationName);
      // A prepared operation reads nothing of the request but its headers; Yoga is given a Request, over the
      // headers object of node:http as its adapter makes them.
      const headers = new NodeRequestHeaders(req.headers);
      let result: unknown;
      try {
        if (prepared) {
          result = await preparedOperations!.run(prepared, { headers }, params.variables);
          // For the access log, as the trusted-documents plugin notes it once the request is authenticated.
          if (documentId !== undefined && scope) scope.documentId = documentId;
        } else {
          const request = new yoga.fetchAPI.Request(url, { method: 'POST', headers: req.headers as Record<string, string> });
          result = await yoga.getResultForParams({ params, request }, { req, res } as unknown as Record<string, never>);
        }
      } catch {
        // Refused before execution by authentication (a wrong key, no budget), or by an onParams plugin: Yoga
        // answers the refusal, with the same authentication outcome (kept in the request scope, not tried twice).
        return false;
      }
      const answer = answerOf(result as ExecutionResult, mediaType, yoga.fetchAPI);
      // As Yoga's CORS plugin adds them to every answer to a request with an Origin (the function reads the
      // request's headers alone).
      setHeaders(answer.headers, Object.entries(getCORSHeadersByRequestAndOptions({ headers } as unknown as Request, cors) ?? {}));
      // As useRequestScope adds them to Yoga's answers (a 429 carries its own).
      if (scope?.rateLimit && answer.status !== 429) setHeaders(answer.headers, Object.entries(rateLimitHeaders(scope.rateLimit)));
      const text = await answer.body;
      const acceptEncoding = req.headers['accept-encoding'];
      const sent = (compression && acceptEncoding !== undefined ? compression.apply(acceptEncoding, answer.headers, text) : undefined) ?? bodyBytes(text);
      answer.headers['content-length'] = String(Buffer.byteLength(sent));
      // With the other answers of this turn: one wake-up of the clients for all of them.
      await writeAtEndOfTurn(() => res.writeHead(answer.status, answer.statusText, answer.headers).end(sent));
      return true;
    },
  };
}
