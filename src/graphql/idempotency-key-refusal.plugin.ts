// Yoga's side of `Idempotency-Key` on /graphql: a mutation sent with the header in a shape the operation runner
// declines (multipart, a streamed answer) cannot have its answer kept, so it is refused before it runs rather
// than run without the promise the header asks for (runner/graphql-idempotency.ts keeps the others').
import { getOperationAST, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export const UNSUPPORTED_KEY = 'An Idempotency-Key is honoured for a mutation sent as POST /graphql with a JSON body and answered as JSON '
  + '(application/json or application/graphql-response+json); send it that way, or without the header.';

export function useIdempotencyKeyRefusal(graphqlEndpoint: string): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const request = (args.contextValue as { request?: Request }).request;
      if (!request?.headers.has('idempotency-key') || new URL(request.url).pathname !== graphqlEndpoint) return;
      if (getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
      setResultAndStopExecution({ errors: [new GraphQLError(UNSUPPORTED_KEY, { extensions: { code: 'IDEMPOTENCY_KEY_UNSUPPORTED', http: { status: 400 } } })] });
    },
  };
}
