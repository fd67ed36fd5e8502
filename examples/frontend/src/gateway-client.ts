// A GraphQL client in a few lines of plain fetch: it takes a typed document generated in src/gql/ and returns
// that operation's result type. With trusted documents it sends only the document's id (generated next to it),
// so the gateway runs exactly the documents of this frontend's manifest.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import type { Settings } from './settings.ts';

interface ResponseError {
  message: string;
  extensions?: { code?: string };
}

/** The gateway refused the request or the operation failed; `codes` are the errors' `extensions.code`. */
export class GatewayError extends Error {
  override name = 'GatewayError';
  readonly codes: string[];

  constructor(status: number, errors: ResponseError[]) {
    super(`HTTP ${status}: ${errors.map((error) => `${error.message}${error.extensions?.code ? ` [${error.extensions.code}]` : ''}`).join('; ')}`);
    this.codes = errors.map((error) => error.extensions?.code ?? 'UNKNOWN');
  }
}

/** The id the client preset generated for a document (`__meta__.hash`, `sha256:<hex>`). */
function documentIdOf(document: TypedDocumentNode<unknown, never>): string {
  const id = (document as { __meta__?: { hash?: unknown } }).__meta__?.hash;
  if (typeof id !== 'string') throw new Error('This document has no id: generate it with the client preset\'s persistedDocuments (npm run codegen)');
  return id;
}

export class GatewayClient {
  readonly #settings: Settings;

  constructor(settings: Settings) {
    this.#settings = settings;
  }

  async request<Result, Variables extends Record<string, unknown>>(document: TypedDocumentNode<Result, Variables>, variables: Variables): Promise<Result> {
    const body = this.#settings.sendDocumentIds
      ? { documentId: documentIdOf(document as TypedDocumentNode<unknown, never>), variables }
      : { query: print(document), variables };
    const response = await fetch(this.#settings.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', 'x-api-key': this.#settings.apiKey },
      body: JSON.stringify(body),
    });
    const result = (await response.json()) as { data?: Result | null; errors?: ResponseError[] };
    if (result.errors?.length) throw new GatewayError(response.status, result.errors);
    if (!response.ok || result.data == null) throw new GatewayError(response.status, [{ message: 'No data in the answer' }]);
    return result.data;
  }
}
