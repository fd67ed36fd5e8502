// What the operation runner knows of a request: a neutral digest each HTTP adapter makes of its own request
// (node:http's, or a Fetch API Request in Yoga), so the runner's steps read the same thing whichever served it.
import type { CallerHeaders } from '../graphql/caller.ts';

export interface RequestDigest {
  method: string;
  /** The path and query string, as the request line has them. */
  url: string;
  headers: CallerHeaders;
  /** The whole body, already read; undefined for none. */
  body: Buffer | undefined;
}
