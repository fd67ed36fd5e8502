// The REST door's side of `Idempotency-Key` (docs/decisions.md#idempotency-keys): the header read, the keyed
// write that runs the route's operation in the key's transaction (modules/idempotency/keyed-write.ts), and the
// legacy answers to what the key's record says instead.
import { fingerprintOf, parseIdempotencyKey } from '../modules/idempotency/idempotency-key.ts';
import { KEY_IN_USE, KeyedWrite, type AnswerMaker, type IdempotentWrites, type KeyedOutcome } from '../modules/idempotency/keyed-write.ts';
import type { StoredAnswer } from '../modules/idempotency/idempotency-store.ts';
import { detail, legacyAnswer, validationFailed, type LegacyAnswer } from './legacy-responses.ts';
import { pydanticError } from './pydantic-errors.ts';

export type { IdempotentWrites } from '../modules/idempotency/keyed-write.ts';

export const KEY_REUSED = 'this Idempotency-Key was used with another request; use a new key for a new request';
export const ANSWER_LOST = 'A request with this Idempotency-Key was carried out, but its answer can no longer be read; read the resource to see its outcome.';

export interface IdempotentRequest {
  method: string;
  /** The path and query, as the fingerprint covers them. */
  target: string;
  body: Buffer | undefined;
  header: string;
  tenantId: string;
  /** The API key that sent it: a key is each API key's own (docs/decisions.md#idempotency-keys). */
  apiKeyId: string;
}

/**
 * The keyed write of a request with an Idempotency-Key, or the 400 to a header that is no key. `answerOf` makes
 * the route's legacy answer of its operation's result; a 5xx is not kept (a retry runs again).
 */
export function keyedLegacyWrite(
  writes: IdempotentWrites, request: IdempotentRequest, answerOf: AnswerMaker<LegacyAnswer>['answerOf'],
): KeyedWrite<LegacyAnswer> | LegacyAnswer {
  const parsed = parseIdempotencyKey(request.header);
  if ('problem' in parsed) return detail(400, parsed.problem);
  const { tenantId, apiKeyId, method, target, body } = request;
  return new KeyedWrite(writes, { tenantId, apiKeyId, key: parsed.key, fingerprint: fingerprintOf(method, target, body) }, {
    answerOf,
    // Stored as its JSON text: a replay is the first answer's bytes (jsonb would not keep the keys' order).
    stored: (answer): StoredAnswer | undefined => (answer.status >= 500 ? undefined : { status: answer.status, headers: answer.headers ?? {}, body: JSON.stringify(answer.body) }),
  });
}

/** The legacy answer to a keyed write's outcome. */
export function legacyAnswerOf(outcome: KeyedOutcome<LegacyAnswer>, key: string): LegacyAnswer {
  switch (outcome.kind) {
    case 'ran': return outcome.answer;
    case 'replay': {
      const { status, headers, body } = outcome.answer;
      return legacyAnswer(status, typeof body === 'string' ? JSON.parse(body) : body, { ...headers, 'idempotent-replayed': 'true' });
    }
    // Built as pydantic builds its items, so the keys come in its order (type, loc, msg, input, ctx).
    case 'mismatch': return validationFailed([pydanticError.valueError(['header', 'Idempotency-Key'], key, KEY_REUSED)]);
    case 'in-progress': return detail(409, KEY_IN_USE);
    case 'lost': return detail(409, ANSWER_LOST);
  }
}
