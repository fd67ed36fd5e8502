// Trusted documents on /graphql (TRUSTED_DOCUMENTS=allow|require): a request names a document of the manifest
// by its id instead of sending the document, and with `require` nothing else runs. Placed after authentication,
// so that a caller without a valid key or budget learns nothing about the manifest; the document it names then
// goes through the same parsing, validation, limits, execution and logging as a document sent in full.
// The operation runner resolves a trusted document's id itself (runner/graphql-requests.ts) and leaves what this
// plugin refuses to Yoga; the REST door's routes are fixed documents, untouched by it.
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { GraphQLError } from 'graphql';
import type { GraphQLParams, OnParamsEventPayload, Plugin } from 'graphql-yoga';
import type { Metrics } from '../observability/metrics.ts';
import { scopeOfServerContext } from '../observability/request-scope.ts';
import type { TrustedDocumentManifest } from './trusted-documents.ts';

export interface TrustedDocumentsOptions {
  mode: 'allow' | 'require';
  manifest: TrustedDocumentManifest;
  metrics: Metrics;
}

/** The body or URL parameter of GraphQL over HTTP's persisted documents (`documentId: "sha256:…"`). */
export const DOCUMENT_ID_PARAMETER = 'documentId';

/** A document id is echoed in the refusal, but not a megabyte of one. */
const MAX_ID_SHOWN = 80;
const HOW_TO_SEND = `send a document's id as "${DOCUMENT_ID_PARAMETER}" (sha256:<hex>), or its hash as extensions.persistedQuery.sha256Hash (version 1)`;

/**
 * The id a request names: `documentId` (body, or URL of a GET), or Apollo's automatic-persisted-queries
 * extension, whose bare SHA-256 hex is the same document's id without its prefix.
 */
function documentIdOfRequest(params: GraphQLParams, request: Request): string | null {
  const documentId = (params as GraphQLParams & { documentId?: unknown }).documentId
    ?? (request.method === 'GET' ? new URL(request.url).searchParams.get(DOCUMENT_ID_PARAMETER) : undefined);
  if (typeof documentId === 'string' && documentId !== '') return documentId;
  const persistedQuery = params.extensions?.persistedQuery as { version?: unknown; sha256Hash?: unknown } | undefined;
  if (persistedQuery?.version === 1 && typeof persistedQuery.sha256Hash === 'string') return `sha256:${persistedQuery.sha256Hash}`;
  return null;
}

export function useTrustedDocuments({ mode, manifest, metrics }: TrustedDocumentsOptions): Plugin {
  /** A refusal (HTTP 400) with its code, counted like the errors of refused documents. */
  const refusal = (code: string, message: (payload: OnParamsEventPayload<Record<string, unknown>>) => string) => (payload: OnParamsEventPayload<Record<string, unknown>>) => {
    metrics.graphqlErrors.inc({ operation: metrics.operationLabel(payload.params.operationName), code });
    return new GraphQLError(message(payload), { extensions: { code, http: { status: 400 } } });
  };
  return usePersistedOperations({
    allowArbitraryOperations: mode === 'allow',
    extractPersistedOperationId: documentIdOfRequest,
    getPersistedOperation: (id, _request, context) => {
      const document = manifest.get(id);
      // For the access log: in `allow`, the /graphql lines without an id are the clients still sending text.
      if (document !== undefined) scopeOfServerContext(context).documentId = id;
      return document ?? null;
    },
    customErrors: {
      notFound: refusal('PERSISTED_QUERY_NOT_FOUND', ({ params, request }) =>
        `Document ${documentIdOfRequest(params, request)?.slice(0, MAX_ID_SHOWN)} is not one of this server's trusted documents: regenerate your operations' manifest and deploy it with the server.`),
      persistedQueryOnly: refusal('PERSISTED_QUERY_REQUIRED', () =>
        `This server runs only its trusted documents, not documents sent in full: ${HOW_TO_SEND}.`),
      keyNotFound: refusal(mode === 'require' ? 'PERSISTED_QUERY_REQUIRED' : 'BAD_REQUEST', () =>
        mode === 'require' ? `This server runs only its trusted documents: ${HOW_TO_SEND}.` : `Must provide a query string, or ${HOW_TO_SEND}.`),
    },
  }) as Plugin;
}
