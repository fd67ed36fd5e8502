// What running a read answers when it did not run: its request's If-None-Match named the tag of the answer it
// would give (runner/entity-tags.ts). Either door answers it 304; neither maps it as a result.
import type { ExecutionResult } from 'graphql';

export const NOT_MODIFIED: ExecutionResult = Object.freeze({});
