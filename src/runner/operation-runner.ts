// The operation runner: one core that serves every operation a request carries, on either door. An HTTP
// adapter hands it a neutral digest of the request (request-digest.ts); the runner picks the door, and each
// door does only what is its own (a GraphQL request's parameters and media type, a REST route's match and
// legacy JSON) around the steps every operation takes, each written once (docs/architecture.md#the-path-of-a-request):
//
//   authenticate and spend the budget (graphql/caller.ts) → find or validate the document (graphql/operation-
//   documents.ts; a route's is prepared at start) → metrics, cost, turn, context, execute, mask
//   (run-operation.ts) → serialize, CORS, budget headers, compress (answer.ts)
//
// A read's answer (GET, HEAD) carries its entity tag, or is 304 (entity-tags.ts). What it declines (a
// subscription, multipart, a CORS preflight, a document that does not parse...) Yoga serves, its plugins
// calling the same step functions (app.ts).
import type { RequestScope } from '../observability/request-scope.ts';
import { finishedAnswer, revalidatedAnswer, type Answer, type AnswerHeaders } from './answer.ts';
import { inCoding, Revalidation } from './entity-tags.ts';
import { buildFingerprint } from './build-fingerprint.ts';
import type { GraphQLRequests } from './graphql-requests.ts';
import type { RequestDigest } from './request-digest.ts';
import type { RestRequests } from './rest-requests.ts';

/** Which door serves a request, known from its request line and headers. */
export type Door = { door: 'graphql'; mediaType: string } | { door: 'rest' };

export interface OperationRunnerOptions {
  graphql: GraphQLRequests;
  rest: RestRequests;
  answerHeaders: AnswerHeaders;
}

export class OperationRunner {
  readonly #options: OperationRunnerOptions;

  constructor(options: OperationRunnerOptions) {
    this.#options = options;
    // Read at start (about 40 ms of file reading), not in the turn of the first read.
    buildFingerprint();
  }

  /** The door that serves the request, or undefined where the runner declines it (before its body is read). */
  doorOf(method: string, url: string, headers: RequestDigest['headers']): Door | undefined {
    const { graphql, rest } = this.#options;
    // A CORS preflight is Yoga's (its CORS support answers it, or, with none configured, the REST plugin's 405).
    if (method !== 'OPTIONS' && rest.owns(url)) return { door: 'rest' };
    const mediaType = graphql.mediaTypeOf(method, url, headers);
    return mediaType === undefined ? undefined : { door: 'graphql', mediaType };
  }

  /** The answer as sent, or undefined where the door declines the request after all (Yoga serves it). */
  async answer(door: Door, request: RequestDigest, scope: RequestScope): Promise<Answer | undefined> {
    const { graphql, rest, answerHeaders } = this.#options;
    const revalidation = this.#revalidationOf(door, request);
    const answer = door.door === 'rest' ? await rest.answer(request, scope, revalidation) : await graphql.answer(request, scope, door.mediaType, revalidation);
    // A REST write's answer carries its deployment's tag (deployment-tag.ts), in the coding the answer is sent in.
    if (answer && !revalidation && door.door === 'rest' && answer.headers.etag) answer.headers.etag = inCoding(answer.headers.etag, this.#codingOf(request));
    return answer && finishedAnswer(revalidation ? revalidatedAnswer(answer, revalidation) : answer, request, scope, answerHeaders);
  }

  /** The content coding the answer to `request` will be sent in (`identity`: none). */
  #codingOf({ headers }: RequestDigest): string {
    const acceptEncoding = headers.get('accept-encoding');
    return (acceptEncoding !== null && this.#options.answerHeaders.compression?.encodingFor(acceptEncoding)) || 'identity';
  }

  /**
   * For a read (GET, HEAD), what its answer's tag depends on besides the caller and the data: the door, the
   * target, the media type and the content coding it will be sent in (docs/decisions.md#conditional-requests).
   */
  #revalidationOf(door: Door, request: RequestDigest): Revalidation | undefined {
    const { method, url, headers } = request;
    if (method !== 'GET' && method !== 'HEAD') return undefined;
    const coding = this.#codingOf(request);
    const ifNoneMatch = headers.get('if-none-match') ?? undefined;
    return new Revalidation(door.door === 'rest' ? `rest ${url} ${coding}` : `graphql ${url} ${door.mediaType} ${coding}`, ifNoneMatch, coding);
  }
}
