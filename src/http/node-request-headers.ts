// The headers of a node:http request, read as a Fetch API Request's are (`get`, any case, repeated values
// joined), for what reads nothing else of a request: authentication, the GraphQL context and the CORS headers
// of a prepared operation's answer (http/plain-graphql-requests.ts). A Request of Yoga's adapter over the same
// headers cost a `{ __typename }` about 5% of its CPU: its construction, and a scan of every header's name
// for each one that is absent (docs/performance.md#answers-written-together).
import type { IncomingHttpHeaders } from 'node:http';

/** What authentication and the context read of a request: a Fetch API Request is one, and so is the class below. */
export interface CallerRequest {
  readonly headers: Pick<Headers, 'get'>;
}

export class NodeRequestHeaders implements Pick<Headers, 'get'> {
  readonly #headers: IncomingHttpHeaders;

  constructor(headers: IncomingHttpHeaders) {
    this.#headers = headers;
  }

  get(name: string): string | null {
    // node:http names them in lower case.
    const value = this.#headers[name] ?? this.#headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
}
