// The Idempotency-Key store against a real database: a retry under the same key gets the first answer, never
// a second write, including when requests race, die, or come back after the lease or the 24 hours.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf, parseIdempotencyKey } from '../src/modules/idempotency/idempotency-key.ts';
import {
  IdempotencyClaimTakenOverError, IdempotencyStore, InvalidIdempotencyKeyError, type ClaimOutcome, type IdempotencyClaim, type StoredAnswer,
} from '../src/modules/idempotency/idempotency-store.ts';
import { useTestDatabase } from './support/test-database.ts';

const database = useTestDatabase();
const ACME = randomUUID();
const GLOBEX = randomUUID();

beforeAll(async () => {
  for (const [id, name] of [[ACME, 'acme'], [GLOBEX, 'globex']]) {
    await database().query('insert into tenant (id, name, created_at, updated_at) values ($1, $2, now(), now())', [id, name]);
  }
});

const em = () => database().orm.em.fork();
const store = new IdempotencyStore();
const CREATE = fingerprintOf('POST', '/v2/deployments', Buffer.from('{"name":"api"}'));
const OTHER_BODY = fingerprintOf('POST', '/v2/deployments', Buffer.from('{"name":"web"}'));
const CREATED: StoredAnswer = {
  status: 201,
  headers: { 'content-type': 'application/json', location: '/v2/deployments/1' },
  body: { id: '1', name: "api's \"quoted\" \\ back?slash ünï", tags: [] },
};

const request = (key: string, fingerprint = CREATE, tenantId = ACME) => ({ tenantId, key, fingerprint });

async function claimed(outcome: Promise<ClaimOutcome>): Promise<IdempotencyClaim> {
  const result = await outcome;
  if (result.kind !== 'claimed') throw new Error(`expected a claim, got ${result.kind}`);
  return result.record;
}

async function commitWrite(claim: IdempotencyClaim, theStore = store) {
  await em().transactional(async (tx) => theStore.markCommitted(tx, claim));
}

async function record(key: string, tenantId = ACME) {
  const [row] = await database().query<{ id: string; committed: boolean; answer: StoredAnswer | null }>(
    'select id, committed, answer from idempotency_record where tenant_id = $1 and key = $2', [tenantId, key]);
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
    const shortLease = new IdempotencyStore({ leaseMs: 100 });
    const key = randomUUID();
    const abandoned = await claimed(shortLease.claim(em(), request(key)));
    expect(await shortLease.claim(em(), request(key))).toEqual({ kind: 'in-progress' });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const retry = await claimed(shortLease.claim(em(), request(key)));
    expect(retry.id).not.toBe(abandoned.id);

    await expect(commitWrite(abandoned, shortLease)).rejects.toThrow(IdempotencyClaimTakenOverError);
    expect(await shortLease.complete(em(), abandoned, { ...CREATED, status: 500 })).toBe(false);
    expect(await shortLease.release(em(), abandoned)).toBe(false);
    await commitWrite(retry, shortLease);
    expect(await shortLease.complete(em(), retry, CREATED)).toBe(true);
    expect(await shortLease.claim(em(), request(key))).toEqual({ kind: 'replay', answer: CREATED });
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
    expect(await record(key)).toEqual({ id: fresh.id, committed: false, answer: null });
    expect(await store.complete(em(), old, CREATED)).toBe(false);
  });

  it('deletes expired records on a claim, at most once a minute', async () => {
    const purging = new IdempotencyStore();
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
