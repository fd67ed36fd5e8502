// The REST door's side of `Idempotency-Key` (docs/decisions.md#idempotency-keys): a write sent with the header
// claims the key for its tenant before it runs, marks it inside its own transaction, and leaves its answer for
// a retry to get. What the key's record says decides the answer to a second request under it.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantSafeEntityManager } from '../db/tenant-safe-entity-manager.ts';
import { fingerprintOf, parseIdempotencyKey } from '../modules/idempotency/idempotency-key.ts';
import type { IdempotencyStore } from '../modules/idempotency/idempotency-store.ts';
import { detail, legacyAnswer, validationFailed, type LegacyAnswer } from './legacy-responses.ts';
import { pydanticError } from './pydantic-errors.ts';

export const IDEMPOTENCY_KEY = 'idempotency-key';
const KEY_REUSED = 'this Idempotency-Key was used with another request; use a new key for a new request';

export interface IdempotentWrites {
  store: IdempotencyStore;
  /** The primary's EntityManager (never a replica: a claim must see every other). */
  em: () => TenantSafeEntityManager;
}

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

/** The answer to a write under an Idempotency-Key: `run`'s (told what to mark inside its transaction), or the key's. */
export async function answerIdempotently(
  writes: IdempotentWrites, request: IdempotentRequest,
  run: (beforeCommit: (tx: EntityManager) => Promise<void>) => Promise<LegacyAnswer>,
): Promise<LegacyAnswer> {
  const parsed = parseIdempotencyKey(request.header);
  if ('problem' in parsed) return detail(400, parsed.problem);
  const em = writes.em();
  const outcome = await writes.store.claim(em, {
    tenantId: request.tenantId, apiKeyId: request.apiKeyId, key: parsed.key, fingerprint: fingerprintOf(request.method, request.target, request.body),
  });
  switch (outcome.kind) {
    case 'replay': {
      const { status, headers, body } = outcome.answer;
      // Stored as its JSON text: jsonb would not keep the keys' order, and a replay is the first answer's bytes.
      return legacyAnswer(status, typeof body === 'string' ? JSON.parse(body) : body, { ...headers, 'idempotent-replayed': 'true' });
    }
    case 'mismatch':
      // Built as pydantic builds its items, so the keys come in its order (type, loc, msg, input, ctx).
      return validationFailed([pydanticError.valueError(['header', 'Idempotency-Key'], parsed.key, KEY_REUSED)]);
    case 'in-progress':
      return detail(409, 'A request with this Idempotency-Key is still being processed; retry later.');
    case 'lost':
      return detail(409, 'A request with this Idempotency-Key was carried out, but its answer was lost; read the resource to see its outcome.');
    case 'claimed':
      break;
  }
  const claim = outcome.record;
  let answer: LegacyAnswer;
  try {
    answer = await run((tx) => writes.store.markCommitted(tx as TenantSafeEntityManager, claim));
  } catch (error) {
    await writes.store.release(em, claim).catch(() => {});
    throw error;
  }
  // A failure that is the service's (5xx) is not kept: a retry runs again, as if the first had never come.
  if (answer.status >= 500) await writes.store.release(em, claim);
  else await writes.store.complete(em, claim, { status: answer.status, headers: answer.headers ?? {}, body: JSON.stringify(answer.body) });
  return answer;
}
