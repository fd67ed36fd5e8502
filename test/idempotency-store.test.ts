// The Idempotency-Key store against a real database: a retry under the same key gets the first answer, never
// a second write, including when requests race, die, or come back after the lease or the 24 hours.
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf, parseIdempotencyKey } from '../src/modules/idempotency/idempotency-key.ts';
import {
  IdempotencyClaimTakenOverError, IdempotencyStore, InvalidIdempotencyKeyError, type ClaimOutcome, type IdempotencyClaim, type StoredAnswer,
} from '../src/modules/idempotency/idempotency-store.ts';
import { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import { useTestDatabase } from './support/test-database.ts';

const database = useTestDatabase();
const ACME = randomUUID();
const GLOBEX = randomUUID();
/** Two API keys (of both tenants): a key is each API key's own. */
const WRITER = randomUUID();
const OTHER_WRITER = randomUUID();

beforeAll(async () => {
  for (const [id, name] of [[ACME, 'acme'], [GLOBEX, 'globex']]) {
    await database().query('insert into tenant (id, name, created_at, updated_at) values ($1, $2, now(), now())', [id, name]);
  }
  for (const id of [WRITER, OTHER_WRITER]) {
    await database().query(`insert into api_key (id, name, prefix, key_hash, may_read_secrets, may_write, may_reconcile, created_at)
                            values ($1, 'writer', $2, $2, true, true, false, now())`, [id, id]);
  }
});

const em = () => database().orm.em.fork();
const SECRETS_KEY = randomBytes(32);
const cipher = new SecretCipher(SECRETS_KEY);
const store = new IdempotencyStore(cipher);
const CREATE = fingerprintOf('POST', '/v2/deployments', Buffer.from('{"name":"api"}'));
const OTHER_BODY = fingerprintOf('POST', '/v2/deployments', Buffer.from('{"name":"web"}'));
const CREATED: StoredAnswer = {
  status: 201,
  headers: { 'content-type': 'application/json', location: '/v2/deployments/1' },
  body: { id: '1', name: "api's \"quoted\" \\ back?slash ünï", tags: [] },
};

const request = (key: string, fingerprint = CREATE, tenantId = ACME, apiKeyId = WRITER) => ({ tenantId, apiKeyId, key, fingerprint });

async function claimed(outcome: Promise<ClaimOutcome>): Promise<IdempotencyClaim> {
  const result = await outcome;
  if (result.kind !== 'claimed') throw new Error(`expected a claim, got ${result.kind}`);
  return result.record;
}

async function commitWrite(claim: IdempotencyClaim, theStore = store) {
  await em().transactional(async (tx) => theStore.markCommitted(tx, claim));
}

async function record(key: string, tenantId = ACME, apiKeyId = WRITER) {
  const [row] = await database().query<{ id: string; committed: boolean; answer_sealed: Buffer | null }>(
    'select id, committed, answer_sealed from idempotency_record where tenant_id = $1 and api_key_id = $2 and key = $3', [tenantId, apiKeyId, key]);
  return row;
}

/** Moves a record's clock back, as if its claim (or its creation) were `seconds` old. */
async function age(key: string, column: 'claimed_at' | 'created_at', seconds: number) {
  await database().query(`update idempotency_record set ${column} = now() - $1 * interval '1 second' where key = $2`, [seconds, key]);
}

describe('claim, complete, replay', () => {
  it('answers a retry with the stored answer instead of running it again', async () => {
    const key = `it's a "key"? \\ ${randomUUID()}`;
    const claim = await claimed(store.claim(em(), request(key)));
    await commitWrite(claim);
    expect(await store.complete(em(), claim, CREATED)).toBe(true);
    expect(await store.claim(em(), request(key))).toEqual({ kind: 'replay', answer: CREATED });
    expect(await store.claim(em(), request(key))).toEqual({ kind: 'replay', answer: CREATED });
  });

  it('refuses the key for another request, answered or not', async () => {
    const key = randomUUID();
    const claim = await claimed(store.claim(em(), request(key)));
    expect(await store.claim(em(), request(key, OTHER_BODY))).toEqual({ kind: 'mismatch' });
    await commitWrite(claim);
    await store.complete(em(), claim, CREATED);
    expect(await store.claim(em(), request(key, OTHER_BODY))).toEqual({ kind: 'mismatch' });
  });

  it('tells a retry of a request still running that it is in progress, committed or not', async () => {
    const key = randomUUID();
    const claim = await claimed(store.claim(em(), request(key)));
    expect(await store.claim(em(), request(key))).toEqual({ kind: 'in-progress' });
    await commitWrite(claim);
    expect(await store.claim(em(), request(key))).toEqual({ kind: 'in-progress' });
  });

  it('lets a retry run again after a release, but never release a write that committed', async () => {
    const key = randomUUID();
    const first = await claimed(store.claim(em(), request(key)));
    expect(await store.release(em(), first)).toBe(true);
    const second = await claimed(store.claim(em(), request(key)));
    await commitWrite(second);
    expect(await store.release(em(), second)).toBe(false);
    expect(await store.claim(em(), request(key))).toEqual({ kind: 'in-progress' });
  });

  it('keeps the keys of two tenants apart', async () => {
    const key = randomUUID();
    const acme = await claimed(store.claim(em(), request(key, CREATE, ACME)));
    const globex = await claimed(store.claim(em(), request(key, OTHER_BODY, GLOBEX)));
    expect(globex.id).not.toBe(acme.id);
    await commitWrite(acme);
    await store.complete(em(), acme, CREATED);
    expect(await store.claim(em(), request(key, CREATE, ACME))).toEqual({ kind: 'replay', answer: CREATED });
    expect(await store.claim(em(), request(key, OTHER_BODY, GLOBEX))).toEqual({ kind: 'in-progress' });
    expect(await store.claim(em(), request(key, CREATE, GLOBEX))).toEqual({ kind: 'mismatch' });
  });

  it('keeps the keys of two API keys of one tenant apart: neither is replayed the other\'s answer', async () => {
    const key = randomUUID();
    const writer = await claimed(store.claim(em(), request(key)));
    await commitWrite(writer);
    await store.complete(em(), writer, CREATED);
    const other = await claimed(store.claim(em(), request(key, CREATE, ACME, OTHER_WRITER)));
    expect(other.id).not.toBe(writer.id);
    expect(await store.claim(em(), request(key))).toEqual({ kind: 'replay', answer: CREATED });
    expect(await store.claim(em(), request(key, CREATE, ACME, OTHER_WRITER))).toEqual({ kind: 'in-progress' });
  });

  it('refuses a key parseIdempotencyKey would refuse', async () => {
    await expect(store.claim(em(), request(''))).rejects.toThrow(InvalidIdempotencyKeyError);
    await expect(store.claim(em(), request('k'.repeat(256)))).rejects.toThrow(InvalidIdempotencyKeyError);
  });
});

describe('the write and its transaction', () => {
  it('leaves the claim uncommitted when the write rolls back, so that a retry can run after a release', async () => {
    const key = randomUUID();
    const claim = await claimed(store.claim(em(), request(key)));
    await expect(em().transactional(async (tx) => {
      await store.markCommitted(tx, claim);
      throw new Error('the write failed');
    })).rejects.toThrow('the write failed');
    expect((await record(key))!.committed).toBe(false);
    expect(await store.release(em(), claim)).toBe(true);
    await claimed(store.claim(em(), request(key)));
  });

  it('says the answer is lost when the write committed and its process died before storing the answer', async () => {
    const key = randomUUID();
    const claim = await claimed(store.claim(em(), request(key)));
    await commitWrite(claim);
    await age(key, 'claimed_at', 61);
    expect(await store.claim(em(), request(key))).toEqual({ kind: 'lost' });
    expect((await record(key))!.committed).toBe(true);
  });

  it('refuses markCommitted outside a transaction, and claim and release inside one', async () => {
    const claim = await claimed(store.claim(em(), request(randomUUID())));
    await expect(store.markCommitted(em(), claim)).rejects.toThrow(/inside the write's transaction/);
    await expect(em().transactional((tx) => store.claim(tx, request(randomUUID())))).rejects.toThrow(/outside a transaction/);
    await expect(em().transactional((tx) => store.release(tx, claim))).rejects.toThrow(/outside a transaction/);
  });
});

describe('abandoned claims', () => {
  it('hands an abandoned claim to a retry after the lease, and the first request can no longer commit', async () => {
    const key = randomUUID();
    const abandoned = await claimed(store.claim(em(), request(key)));
    expect(await store.claim(em(), request(key))).toEqual({ kind: 'in-progress' });
    // The lease (a minute) nearly, then just over by the database's clock, not by waiting for it.
    await age(key, 'claimed_at', 59);
    expect(await store.claim(em(), request(key))).toEqual({ kind: 'in-progress' });
    await age(key, 'claimed_at', 61);
    const retry = await claimed(store.claim(em(), request(key)));
    expect(retry.id).not.toBe(abandoned.id);

    await expect(commitWrite(abandoned)).rejects.toThrow(IdempotencyClaimTakenOverError);
    expect(await store.complete(em(), abandoned, { ...CREATED, status: 500 })).toBe(false);
    expect(await store.release(em(), abandoned)).toBe(false);
    await commitWrite(retry);
    expect(await store.complete(em(), retry, CREATED)).toBe(true);
    expect(await store.claim(em(), request(key))).toEqual({ kind: 'replay', answer: CREATED });
  });

  it('lets only one of many retries take an abandoned claim over', async () => {
    const key = randomUUID();
    await claimed(store.claim(em(), request(key)));
    await age(key, 'claimed_at', 61);
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => store.claim(em(), request(key))));
    expect(outcomes.filter((o) => o.kind === 'claimed')).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'in-progress')).toHaveLength(9);
  });

  it('never takes over a claim whose answer is stored, committed or not', async () => {
    const key = randomUUID();
    const claim = await claimed(store.claim(em(), request(key)));
    const refused = { status: 409, headers: {}, body: { detail: 'version mismatch' } };
    await store.complete(em(), claim, refused);
    await age(key, 'claimed_at', 3600);
    expect(await store.claim(em(), request(key))).toEqual({ kind: 'replay', answer: refused });
  });
});

describe('expiry after 24 hours', () => {
  it('replaces an expired record with a fresh claim, whatever request it was for', async () => {
    const key = randomUUID();
    const old = await claimed(store.claim(em(), request(key)));
    await commitWrite(old);
    await store.complete(em(), old, CREATED);
    await age(key, 'created_at', 24 * 3600 + 1);
    const fresh = await claimed(store.claim(em(), request(key, OTHER_BODY)));
    expect(await record(key)).toEqual({ id: fresh.id, committed: false, answer_sealed: null });
    expect(await store.complete(em(), old, CREATED)).toBe(false);
  });

  it('deletes expired records on a claim, at most once a minute', async () => {
    const purging = new IdempotencyStore(cipher);
    const [first, second, kept] = [randomUUID(), randomUUID(), randomUUID()];
    for (const key of [first, second, kept]) await claimed(store.claim(em(), request(key)));
    await age(first, 'created_at', 24 * 3600 + 1);
    await age(kept, 'created_at', 23 * 3600);
    await claimed(purging.claim(em(), request(randomUUID())));
    expect(await record(first)).toBeUndefined();
    expect(await record(kept)).toBeDefined();

    await age(second, 'created_at', 24 * 3600 + 1);
    await claimed(purging.claim(em(), request(randomUUID())));
    expect(await record(second)).toBeDefined();
  });
});

describe('concurrent claims', () => {
  it('gives one of 20 concurrent requests under one key the claim, and tells the others it is in progress', async () => {
    const key = randomUUID();
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => store.claim(em(), request(key))));
    expect(outcomes.filter((o) => o.kind === 'claimed')).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'in-progress')).toHaveLength(19);
    expect(await database().query('select 1 from idempotency_record where key = $1', [key])).toHaveLength(1);
  });

  it('replays the answer to every concurrent retry once it is stored', async () => {
    const key = randomUUID();
    const claim = await claimed(store.claim(em(), request(key)));
    await commitWrite(claim);
    await store.complete(em(), claim, CREATED);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => store.claim(em(), request(key))));
    expect(outcomes).toEqual(Array.from({ length: 20 }, () => ({ kind: 'replay', answer: CREATED })));
  });
});

describe('sealed answers', () => {
  const completed = async (key: string, answer: StoredAnswer, theStore = store) => {
    const claim = await claimed(theStore.claim(em(), request(key)));
    await commitWrite(claim, theStore);
    expect(await theStore.complete(em(), claim, answer)).toBe(true);
    return claim;
  };
  const VALUE = 'sk_live_stored_answer_Qx7';
  const REVEALING: StoredAnswer = { status: 201, headers: {}, body: JSON.stringify({ secrets: [{ name: 'STRIPE', value: VALUE }] }) };

  it('stores the answer sealed under the secrets key: no value in the record, in any form', async () => {
    const key = randomUUID();
    await completed(key, REVEALING);
    const [row] = await database().query<{ text: string; fingerprint: string }>(
      `select t::text as text, encode(answer_sealed, 'escape') || encode(answer_sealed, 'hex') || encode(answer_sealed, 'base64') as sealed,
              answer_key_fingerprint as fingerprint from idempotency_record t where key = $1`, [key]);
    expect(row!.fingerprint).toBe(cipher.fingerprint);
    for (const form of [VALUE, Buffer.from(VALUE).toString('hex'), Buffer.from(VALUE).toString('base64')]) {
      expect(JSON.stringify(row)).not.toContain(form);
    }
    expect(await store.claim(em(), request(key))).toEqual({ kind: 'replay', answer: REVEALING });
  });

  it('does not open an answer copied onto another API key\'s record, or with a key that did not seal it', async () => {
    const key = randomUUID();
    await completed(key, REVEALING);
    const other = await claimed(store.claim(em(), request(key, CREATE, ACME, OTHER_WRITER)));
    await database().query(
      `update idempotency_record o set answer_sealed = w.answer_sealed, answer_key_fingerprint = w.answer_key_fingerprint, committed = true
         from idempotency_record w where o.id = $1 and w.key = $2 and w.api_key_id = $3`, [other.id, key, WRITER]);
    expect(await store.claim(em(), request(key, CREATE, ACME, OTHER_WRITER))).toEqual({ kind: 'lost' });
    expect(await new IdempotencyStore(new SecretCipher(randomBytes(32))).claim(em(), request(key))).toEqual({ kind: 'lost' });
  });

  it('re-seals stored answers under a new key on rotation, and drops those no key opens', async () => {
    const [kept, damaged] = [randomUUID(), randomUUID()];
    await completed(kept, REVEALING);
    await completed(damaged, CREATED);
    await database().query(`update idempotency_record set answer_sealed = decode('01' || repeat('00', 40), 'hex') where key = $1`, [damaged]);
    const newKey = randomBytes(32);
    const rotating = new IdempotencyStore(new SecretCipher(newKey, [SECRETS_KEY]));
    const outcome = await rotating.resealAnswers(em(), 1);
    expect(outcome.dropped).toBeGreaterThanOrEqual(1);
    expect(outcome.resealed).toBeGreaterThanOrEqual(1);
    expect(await rotating.resealAnswers(em(), 1)).toEqual({ resealed: 0, dropped: 0 });
    const afterRotation = new IdempotencyStore(new SecretCipher(newKey));
    expect(await afterRotation.claim(em(), request(kept))).toEqual({ kind: 'replay', answer: REVEALING });
    // The damaged answer is gone: its write committed, so once its lease has passed a retry hears it was lost.
    await age(damaged, 'claimed_at', 61);
    expect(await afterRotation.claim(em(), request(damaged))).toEqual({ kind: 'lost' });
    expect(await store.claim(em(), request(kept))).toEqual({ kind: 'lost' });
  });
});

describe('the Idempotency-Key header', () => {
  it('takes a Structured Field string or a bare value', () => {
    expect(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toEqual({ key: '8e03978e-40d5-43e8-bc93-6894a57f9324' });
    expect(parseIdempotencyKey(' 8e03978e-40d5-43e8-bc93-6894a57f9324 ')).toEqual({ key: '8e03978e-40d5-43e8-bc93-6894a57f9324' });
    expect(parseIdempotencyKey('"a \\"quoted\\" \\\\ key"')).toEqual({ key: 'a "quoted" \\ key' });
    expect(parseIdempotencyKey('"abc";ignored=1')).toEqual({ key: 'abc' });
    expect(parseIdempotencyKey(`"${'k'.repeat(255)}"`)).toEqual({ key: 'k'.repeat(255) });
  });

  it('refuses an empty, too long or malformed value with a problem for a 400', () => {
    for (const header of ['', '   ', '""', 'k'.repeat(256), `"${'k'.repeat(256)}"`, 'two words', 'a, b', '"unclosed', '"a"b', '"bad \\n escape"', '"tab\tkey"']) {
      expect(parseIdempotencyKey(header), header).toEqual({ problem: expect.stringMatching(/Idempotency-Key/) });
    }
  });

  it('fingerprints the method, the path and the body', () => {
    const body = Buffer.from('{"name":"api"}');
    expect(fingerprintOf('post', '/v2/deployments', body)).toBe(fingerprintOf('POST', '/v2/deployments', body));
    expect(fingerprintOf('POST', '/v2/deployments', body)).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprintOf('PATCH', '/v2/deployments', body)).not.toBe(fingerprintOf('POST', '/v2/deployments', body));
    expect(fingerprintOf('POST', '/v2/deployments/1', body)).not.toBe(fingerprintOf('POST', '/v2/deployments', body));
    expect(fingerprintOf('POST', '/v2/deployments', undefined)).toBe(fingerprintOf('POST', '/v2/deployments', Buffer.alloc(0)));
  });
});
