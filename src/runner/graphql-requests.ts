// The GraphQL door of the operation runner: `POST /graphql` with a JSON body, as frontend apps send it, and a
// query sent by GET with its parameters in the query string (which may be answered 304: entity-tags.ts); a
// document or (TRUSTED_DOCUMENTS on) a trusted document's id, or Apollo's persisted-query hash of one. What it
// does itself is what Yoga's HTTP layer does for these shapes of request: read the parameters and pick the media
// type; the operation then takes the steps every operation takes (run-operation.ts), and its answer is made as
// Yoga's processRegularResult makes it.
//
// It declines (and Yoga serves, with the body already read) any other shape: an Accept header that only a
// streamed answer (multipart, event stream) or none satisfies, another content type, a parameter other than
// query, variables, operationName, extensions and (trusted documents on) documentId, a request without a
// document, what the trusted-documents plugin would refuse, a document that may hold a subscription, one that
// does not parse; of GETs, a page view (GraphiQL), one without a key header (the CSRF rule), one with a body,
// and a mutation. test/plain-graphql-requests.test.ts sends the same requests to a service with the runner and
// to one where Yoga serves everything, and compares what clients see and what the services count.
import type { ExecutionResult, GraphQLError } from 'graphql';
import type { GraphQLParams } from 'graphql-yoga';
import { callerOf } from '../graphql/caller.ts';
import { runnableOperation, type OperationDocuments } from '../graphql/operation-documents.ts';
import { DOCUMENT_ID_PARAMETER } from '../graphql/trusted-documents.plugin.ts';
import type { TrustedDocumentManifest } from '../graphql/trusted-documents.ts';
import type { RequestScope } from '../observability/request-scope.ts';
import { graphqlAnswer, notModifiedAnswer, type Answer } from './answer.ts';
import type { Revalidation } from './entity-tags.ts';
import type { RequestDigest } from './request-digest.ts';
import { runOperation, type OperationSteps } from './run-operation.ts';
import type { IdempotentWrites } from '../modules/idempotency/keyed-write.ts';
import { IDEMPOTENCY_KEY } from '../modules/idempotency/idempotency-key.ts';
import { answerOfOutcome, keyedMutation } from './graphql-idempotency.ts';

/**
 * The media type Yoga answers a single (not streamed) result with, for an Accept header; undefined where Yoga
 * would stream it (multipart/mixed, text/event-stream) or refuse it (406). Yoga's choice, as its result
 * processors make it (graphql-yoga's use-result-processor.js and accept.js): q values are ignored, a type with
 * a charset other than utf-8 does not count, and the first type in the client's order that
 * application/graphql-response+json or application/json matches decides, application/json where both do (a
 * wildcard, `application/*`). A missing or empty header is the wildcard of every type.
 */
function regularMediaType(accept: string | null): string | undefined {
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
function rememberedMediaType(accept: string | null): string | undefined {
  if (accept === null) return regularMediaType(accept);
  if (mediaTypeByAccept.has(accept)) return mediaTypeByAccept.get(accept);
  const mediaType = regularMediaType(accept);
  if (mediaTypeByAccept.size < REMEMBERED_ACCEPT_HEADERS) mediaTypeByAccept.set(accept, mediaType);
  return mediaType;
}

const JSON_CONTENT_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

const PARAMETERS = new Set(['query', 'variables', 'operationName', 'extensions', DOCUMENT_ID_PARAMETER]);

/**
 * A GET this door serves: not a browser's page view (Yoga shows GraphiQL to an Accept with text/html), no body,
 * and one of the headers the CSRF prevention plugin asks of a GET (app.ts): a key, or Yoga's own.
 */
function plainGet(headers: RequestDigest['headers']): boolean {
  if (headers.get('accept')?.includes('text/html') || (headers.get('content-length') ?? '0') !== '0' || headers.get('transfer-encoding') !== null) return false;
  return headers.get('x-api-key') !== null || headers.get('authorization') !== null || headers.get('x-graphql-yoga-csrf') !== null;
}

// A subscription is answered as a stream (or refused) by Yoga's result processors. Its document holds the
// word, so a document that does not cannot be one; one that does (a field of that name) just goes to Yoga.
const MAY_SUBSCRIBE = /\bsubscription\b/;

interface PlainParameters {
  params: GraphQLParams;
  /** The document's text: the body's, or the trusted document's it names by `documentId`. */
  document: string;
  documentId: string | undefined;
}

type TrustedDocuments = { mode: 'allow' | 'require'; manifest: TrustedDocumentManifest } | undefined;

/** The parameters of a body of exactly this door's shape, or undefined. */
function bodyParameters(body: Buffer, trusted: TrustedDocuments): PlainParameters | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  return plainParameters(parsed as Record<string, unknown>, trusted);
}

/**
 * The parameters of a GET's query string, read as Yoga reads them (graphql-yoga's request-parser/utils.js): the
 * first value of each, an empty one as none, `variables` and `extensions` as JSON, other names ignored; or
 * undefined where Yoga would refuse them (JSON that does not parse).
 */
function queryStringParameters(url: string, trusted: TrustedDocuments): PlainParameters | undefined {
  const search = new URLSearchParams(url.slice(url.indexOf('?') + 1));
  const raw: Record<string, unknown> = {};
  try {
    for (const name of ['query', 'operationName', 'variables', 'extensions', ...(trusted ? [DOCUMENT_ID_PARAMETER] : [])]) {
      const value = search.get(name) || undefined;
      if (value !== undefined) raw[name] = name === 'variables' || name === 'extensions' ? JSON.parse(value) : value;
    }
  } catch {
    return undefined;
  }
  return plainParameters(raw, trusted);
}

/** The parameters of a request of exactly this door's shape (its body's, or its query string's), or undefined. */
function plainParameters(params: Record<string, unknown>, trusted: TrustedDocuments): PlainParameters | undefined {
  for (const name in params) if (!PARAMETERS.has(name)) return undefined;
  const { query, variables, operationName, extensions } = params;
  let { documentId } = params;
  // Apollo's persisted-query hash (the extension its link sends) names the same trusted document as
  // `documentId: "sha256:<hash>"`, as the trusted-documents plugin reads it.
  const persisted = (extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | undefined)?.persistedQuery;
  if (trusted && documentId === undefined && query === undefined && persisted?.version === 1 && typeof persisted.sha256Hash === 'string') {
    documentId = `sha256:${persisted.sha256Hash}`;
  }
  // A trusted document: only one of the manifest's, named in place of a document. What the trusted-documents
  // plugin refuses (unknown ids, documents sent in full where only trusted ones run) Yoga answers, and the
  // plugin counts once.
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
  // Extensions go to the plugins as they are (Apollo Client 4 names itself in them).
  if (extensions != null && (typeof extensions !== 'object' || Array.isArray(extensions))) return undefined;
  return { params: params as GraphQLParams, document, documentId: documentId as string | undefined };
}

export interface GraphQLRequestsOptions {
  steps: OperationSteps;
  documents: OperationDocuments;
  graphqlEndpoint: string;
  trustedDocuments: TrustedDocuments;
  fetchAPI: Parameters<typeof graphqlAnswer>[2];
  /** Where a mutation sent with an Idempotency-Key runs as a keyed write (graphql-idempotency.ts). */
  idempotentWrites: IdempotentWrites;
}

export class GraphQLRequests {
  readonly #options: GraphQLRequestsOptions;

  constructor(options: GraphQLRequestsOptions) {
    this.#options = options;
  }

  /**
   * From the request line and headers alone: the media type the answer will have once the body is read, or
   * undefined where the runner declines the request.
   */
  mediaTypeOf(method: string, url: string, headers: RequestDigest['headers']): string | undefined {
    const { graphqlEndpoint } = this.#options;
    const plainShape = method === 'POST'
      ? url === graphqlEndpoint && headers.get('content-length') !== null && headers.get('transfer-encoding') === null
        && JSON_CONTENT_TYPES.has(headers.get('content-type')?.toLowerCase() ?? '')
      : method === 'GET' && url.startsWith(`${graphqlEndpoint}?`) && plainGet(headers);
    return plainShape ? rememberedMediaType(headers.get('accept')) : undefined;
  }

  /** The answer, or undefined where the runner declines the request (Yoga serves it). */
  async answer(request: RequestDigest, scope: RequestScope, mediaType: string, revalidation?: Revalidation): Promise<Answer | undefined> {
    const { steps, documents, graphqlEndpoint, trustedDocuments, fetchAPI } = this.#options;
    const plain = request.method === 'GET' ? queryStringParameters(request.url, trustedDocuments) : request.body && bodyParameters(request.body, trustedDocuments);
    if (!plain) return undefined;
    const { params, document: text, documentId } = plain;
    scope.route = graphqlEndpoint;
    const answer = (result: ExecutionResult) => graphqlAnswer(result, mediaType, fetchAPI);
    let principal;
    try {
      principal = await callerOf(scope, request.headers, steps.services);
    } catch (refusal) {
      return answer({ errors: [steps.maskError(refusal) as GraphQLError] });
    }
    let document;
    try {
      document = documents.find(text, params.operationName ?? undefined);
    } catch {
      // A syntax error, or no operation of that name: Yoga answers it (from its parser's cache of errors).
      return undefined;
    }
    if (Array.isArray(document)) return answer({ errors: document });
    const operation = runnableOperation(document as Exclude<typeof document, readonly GraphQLError[]>, params.operationName);
    // No operation of that name in a document validated before: Yoga answers it, as it did the first time.
    if (!operation.operation) return undefined;
    // Yoga refuses a mutation sent by GET (405), and answers it.
    if (request.method === 'GET' && operation.operation.operation !== 'query') return undefined;
    // For the access log, as the trusted-documents plugin notes it once the request is authenticated.
    if (documentId !== undefined) scope.documentId = documentId;
    const header = request.headers.get(IDEMPOTENCY_KEY);
    if (header !== null && operation.operation.operation === 'mutation') {
      const keyed = keyedMutation(this.#options.idempotentWrites, { header, method: request.method, url: request.url, body: request.body, principal, mediaType }, answer);
      if (!('run' in keyed)) return keyed;
      const result = await runOperation(steps, scope, principal, operation, params.variables, { keyed });
      return keyed.outcome ? answerOfOutcome(keyed.outcome, mediaType) : answer(result);
    }
    const result = await runOperation(steps, scope, principal, operation, params.variables, { revalidation });
    return revalidation?.notModified ? notModifiedAnswer(revalidation) : answer(result);
  }
}
