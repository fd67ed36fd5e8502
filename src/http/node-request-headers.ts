// The headers of a node:http request, read as a Fetch API Request's are (`get`, any case, repeated values
// joined as it joins them), for the operation runner's request digest: its steps read nothing else of a
// request (authentication, the media type, CORS, compression). A Request of Yoga's adapter over the same
// headers cost a `{ __typename }` about 5% of its CPU: its construction, and a scan of every header's name
// for each one that is absent (docs/performance.md#answers-written-together).
import type { IncomingHttpHeaders } from 'node:http';

export class NodeRequestHeaders implements Pick<Headers, 'get'> {
  readonly #headers: IncomingHttpHeaders;

  constructor(headers: IncomingHttpHeaders) {
    this.#headers = headers;
  }

  get(name: string): string | null {
    // node:http names them in lower case.
    const value = this.#headers[name] ?? this.#headers[name.toLowerCase()];
    if (value === undefined) return null;
    // Only Set-Cookie comes as an array; Yoga's Request joins its values without a space.
    return Array.isArray(value) ? value.join(',') : value;
  }
}
