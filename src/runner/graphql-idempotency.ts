// The GraphQL door's side of `Idempotency-Key` (docs/graphql.md#retrying-a-mutation): a mutation sent with the
// header runs as a keyed write (modules/idempotency/keyed-write.ts), as REST writes do, and a retry under the
// key gets the first answer's status, headers and bytes. Only an answer without errors is kept: an error rolls
// the whole request back (every mutation field of it), so a retry runs it again.
import { STATUS_CODES } from 'node:http';
import type { ExecutionResult } from 'graphql';
import { fingerprintOf, parseIdempotencyKey } from '../modules/idempotency/idempotency-key.ts';
import { KEY_IN_USE, KeyedWrite, type IdempotentWrites, type KeyedOutcome } from '../modules/idempotency/keyed-write.ts';
import { NO_SINGLE_TENANT, type Principal } from '../modules/tenancy/authenticate.ts';
import type { Answer } from './answer.ts';

interface MadeAnswer {
  answer: Answer;
  kept: boolean;
}

/** A GraphQL error answer of the door's own (the operation did not run), as GraphQL over HTTP shapes one. */
function errorAnswer(status: number, mediaType: string, code: string, message: string): Answer {
  return {
    status, statusText: STATUS_CODES[status], headers: { 'content-type': `${mediaType}; charset=utf-8` },
    body: JSON.stringify({ errors: [{ message, extensions: { code } }] }),
  };
}

export interface GraphQLKeyedRequest {
  header: string;
  method: string;
  url: string;
  body: Buffer | undefined;
  principal: Principal;
  mediaType: string;
}

/** The keyed write of a mutation request with an Idempotency-Key, or the answer to a header that cannot be one. */
export function keyedMutation(
  writes: IdempotentWrites, request: GraphQLKeyedRequest, answerOf: (result: ExecutionResult) => Promise<Answer>,
): KeyedWrite<MadeAnswer> | Answer {
  const { header, method, url, body, principal, mediaType } = request;
  const parsed = parseIdempotencyKey(header);
  if ('problem' in parsed) return errorAnswer(400, mediaType, 'IDEMPOTENCY_KEY_INVALID', parsed.problem);
  if (principal.tenantId === NO_SINGLE_TENANT) {
    return errorAnswer(400, mediaType, 'IDEMPOTENCY_KEY_INVALID', 'An Idempotency-Key is kept per tenant: use it with an API key of one tenant (or one naming its tenant).');
  }
  return new KeyedWrite(writes, { tenantId: principal.tenantId, apiKeyId: principal.apiKeyId, key: parsed.key, fingerprint: fingerprintOf(method, url, body) }, {
    // With an error the transaction rolls back: the answer says so by its errors alone, and shows no data of a
    // field that had run (its write is undone too).
    answerOf: async (result) => (result.errors?.length
      ? { answer: await answerOf({ data: null, errors: result.errors }), kept: false }
      : { answer: await answerOf(result), kept: true }),
    stored: ({ answer, kept }) => (kept && typeof answer.body === 'string' ? { status: answer.status, headers: answer.headers, body: answer.body } : undefined),
  });
}

/** The answer to a keyed mutation's outcome. */
export function answerOfOutcome(outcome: KeyedOutcome<MadeAnswer>, mediaType: string): Answer {
  switch (outcome.kind) {
    case 'ran': return outcome.answer.answer;
    case 'replay': {
      const { status, headers, body } = outcome.answer;
      return { status, statusText: STATUS_CODES[status], headers: { ...headers, 'idempotent-replayed': 'true' }, body: body as string };
    }
    case 'mismatch':
      return errorAnswer(422, mediaType, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with another request; use a new key for a new request.');
    case 'in-progress':
      return errorAnswer(409, mediaType, 'IDEMPOTENCY_KEY_IN_USE', KEY_IN_USE);
    case 'lost':
      return errorAnswer(409, mediaType, 'IDEMPOTENCY_ANSWER_UNREADABLE', 'A request with this Idempotency-Key was carried out, but its answer can no longer be read; read the data to see its outcome.');
  }
}
