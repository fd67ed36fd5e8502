// A GraphQL client in a few lines of plain fetch: it takes a typed document generated in src/gql/ and returns
// that operation's result type. With trusted documents it sends only the document's id (generated next to it),
// so the gateway runs exactly the documents of this frontend's manifest. Queries go by GET, so that their
// answers can be revalidated (ETag, If-None-Match, 304); mutations and subscriptions by POST.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { getOperationAST, print, stripIgnoredCharacters } from 'graphql';
import { RevalidatingCache } from './revalidating-cache.ts';
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

const SINGLE_RESULT = 'application/graphql-response+json';

export class GatewayClient {
  readonly #settings: Settings;
  /** The answers to this client's queries, revalidated on every use: what a browser's HTTP cache does. */
  readonly cache = new RevalidatingCache();

  constructor(settings: Settings) {
    this.#settings = settings;
  }

  /** A query (by GET, revalidated) or a mutation (by POST), and its typed result. */
  async request<Result, Variables extends Record<string, unknown>>(document: TypedDocumentNode<Result, Variables>, variables: Variables): Promise<Result> {
    if (getOperationAST(document)?.operation === 'query') {
      const { status, body } = await this.cache.get(this.#queryUrl(document, variables), { accept: SINGLE_RESULT, 'x-api-key': this.#settings.apiKey });
      return dataOf(status, JSON.parse(body) as ExecutionResult<Result>);
    }
    const response = await this.#post(document, variables, SINGLE_RESULT);
    return dataOf(response.status, (await response.json()) as ExecutionResult<Result>);
  }

  /**
   * A subscription's events as they come (GraphQL over server-sent events: an `event: next` per result, `event:
   * complete` at the end, comment lines as heartbeats), until the gateway completes the stream or `signal` aborts.
   */
  async *subscribe<Result, Variables extends Record<string, unknown>>(
    document: TypedDocumentNode<Result, Variables>, variables: Variables, signal?: AbortSignal,
  ): AsyncGenerator<Result> {
    const response = await this.#post(document, variables, 'text/event-stream', signal);
    if (!response.ok || !response.body) {
      const result = (await response.json().catch(() => ({}))) as ExecutionResult<Result>;
      throw new GatewayError(response.status, result.errors?.length ? result.errors : [{ message: 'The subscription was refused' }]);
    }
    let buffered = '';
    const decoder = new TextDecoder();
    for await (const chunk of response.body) {
      buffered += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const lines = buffered.slice(0, end).split('\n');
        buffered = buffered.slice(end + 2);
        const event = lines.find((line) => line.startsWith('event:'))?.slice(6).trim();
        const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n');
        if (event === 'complete') return;
        if (event === 'next') yield dataOf(response.status, JSON.parse(data) as ExecutionResult<Result>);
      }
    }
  }

  /**
   * A query's GET URL: its id (`documentId=sha256:…`) with trusted documents, else its text
   * without the indentation and line breaks that print() adds; variables as JSON, left out when there are none.
   */
  #queryUrl(document: TypedDocumentNode<unknown, never>, variables: Record<string, unknown>): string {
    const url = new URL(this.#settings.url);
    if (this.#settings.sendDocumentIds) url.searchParams.set('documentId', documentIdOf(document));
    else url.searchParams.set('query', stripIgnoredCharacters(print(document)));
    if (Object.keys(variables).length > 0) url.searchParams.set('variables', JSON.stringify(variables));
    return url.href;
  }

  #post(document: TypedDocumentNode<unknown, never>, variables: Record<string, unknown>, accept: string, signal?: AbortSignal): Promise<Response> {
    const body = this.#settings.sendDocumentIds ? { documentId: documentIdOf(document), variables } : { query: print(document), variables };
    return fetch(this.#settings.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept, 'x-api-key': this.#settings.apiKey },
      body: JSON.stringify(body),
      signal,
    });
  }
}

interface ExecutionResult<Result> {
  data?: Result | null;
  errors?: ResponseError[];
}

function dataOf<Result>(status: number, result: ExecutionResult<Result>): Result {
  if (result.errors?.length) throw new GatewayError(status, result.errors);
  if (status >= 300 || result.data == null) throw new GatewayError(status, [{ message: 'No data in the answer' }]);
  return result.data;
}
