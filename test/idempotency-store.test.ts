// The Idempotency-Key store against a real database: a request under a key takes the key's lock in its write's
// transaction and stores its answer there, so a retry gets the first answer, never a second write, including
// when requests race, die before committing, or come back after the 24 hours.
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import type { ExecutionResult } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOf, parseIdempotencyKey } from '../src/modules/idempotency/idempotency-key.ts';
import { IdempotencyStore, InvalidIdempotencyKeyError, type IdempotencyRequest, type KeyState, type StoredAnswer } from '../src/modules/idempotency/idempotency-store.ts';
import { KEY_ANSWERED, KeyedWrite } from '../src/modules/idempotency/keyed-write.ts';
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

const request = (key: string, fingerprint = CREATE, tenantId = ACME, apiKeyId = WRITER): IdempotencyRequest => ({ tenantId, apiKeyId, key, fingerprint });

/** What a request under the key learns when it starts (its transaction then ends). */
const stateOf = (req: IdempotencyRequest, theStore = store): Promise<KeyState> => em().transactional((tx) => theStore.lock(tx, req));

/** A request under the key that ran and stored `answer` in its transaction. */
async function answered(req: IdempotencyRequest, answer: StoredAnswer = CREATED, theStore = store): Promise<void> {
  await em().transactional(async (tx) => {
    expect(await theStore.lock(tx, req)).toEqual({ kind: 'free' });
    await theStore.record(tx, req, answer);
  });
}

/** A promise and its resolver. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** A transaction that has taken the key's lock and holds it until `release` (rolled back, or its session killed). */
async function holding(req: IdempotencyRequest) {
  const taken = deferred<KeyState>();
  const release = deferred<'rollback'>();
  const ended = em().transactional(async (tx) => {
    taken.resolve(await store.lock(tx, req));
    await release.promise;
    throw new Error('rolled back');
  }).catch(() => {});
  return { state: await taken.promise, release: async () => { release.resolve('rollback'); await ended; } };
}

async function record(key: string, tenantId = ACME, apiKeyId = WRITER) {
  const [row] = await database().query<{ id: string; answer_sealed: Buffer }>(
    'select id, answer_sealed from idempotency_record where tenant_id = $1 and api_key_id = $2 and key = $3', [tenantId, apiKeyId, key]);
  return row;
}

/** Moves a record's clock back, as if it were `seconds` old. */
async function age(key: string, seconds: number) {
  await database().query(`update idempotency_record set created_at = now() - $1 * interval '1 second' where key = $2`, [seconds, key]);
}

describe('lock, record, replay', () => {
  it('answers a retry with the stored answer instead of running it again', async () => {
    const key = `it's a "key"? \\ ${randomUUID()}`;
    await answered(request(key));
    expect(await stateOf(request(key))).toEqual({ kind: 'replay', answer: CREATED });
    expect(await stateOf(request(key))).toEqual({ kind: 'replay', answer: CREATED });
  });

  it('refuses the key for another request once answered', async () => {
    const key = randomUUID();
    await answered(request(key));
    expect(await stateOf(request(key, OTHER_BODY))).toEqual({ kind: 'mismatch' });
  });

  it('tells a request under a key another is running with that it is in progress, and lets it run once that one ended', async () => {
    const key = randomUUID();
    const first = await holding(request(key));
    expect(first.state).toEqual({ kind: 'free' });
    expect(await stateOf(request(key))).toEqual({ kind: 'in-progress' });
    expect(await stateOf(request(key, OTHER_BODY))).toEqual({ kind: 'in-progress' });
    await first.release();
    // Rolled back: nothing of it was kept, so the retry runs.
    expect(await stateOf(request(key))).toEqual({ kind: 'free' });
  });

  it('frees the key at once when the session running the request dies before committing', async () => {
    const key = randomUUID();
    const client = new pg.Client({ connectionString: database().url });
    await client.connect();
    client.on('error', () => {});
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`idempotency-key/${ACME}/${WRITER}/${key}`]);
    expect(await stateOf(request(key))).toEqual({ kind: 'in-progress' });
    const [{ pid }] = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows as [{ pid: number }];
    // As a gateway killed mid-request: its connection closes, and PostgreSQL ends its transaction.
    await database().query('select pg_terminate_backend($1)', [pid]);
    await client.end().catch(() => {});
    await expect.poll(() => stateOf(request(key))).toEqual({ kind: 'free' });
  });

  it('keeps the keys of two tenants apart', async () => {
    const key = randomUUID();
    await answered(request(key, CREATE, ACME));
    const globex = await holding(request(key, OTHER_BODY, GLOBEX));
    expect(globex.state).toEqual({ kind: 'free' });
    expect(await stateOf(request(key, CREATE, ACME))).toEqual({ kind: 'replay', answer: CREATED });
    await globex.release();
    expect(await stateOf(request(key, CREATE, GLOBEX))).toEqual({ kind: 'free' });
  });

  it('keeps the keys of two API keys of one tenant apart: neither is replayed the other\'s answer', async () => {
    const key = randomUUID();
    await answered(request(key));
    expect(await stateOf(request(key, CREATE, ACME, OTHER_WRITER))).toEqual({ kind: 'free' });
    await answered(request(key, CREATE, ACME, OTHER_WRITER), { ...CREATED, status: 200 });
    expect(await stateOf(request(key))).toEqual({ kind: 'replay', answer: CREATED });
    expect(await stateOf(request(key, CREATE, ACME, OTHER_WRITER))).toEqual({ kind: 'replay', answer: { ...CREATED, status: 200 } });
  });

  it('refuses a key parseIdempotencyKey would refuse, and a lock outside a transaction', async () => {
    await expect(stateOf(request(''))).rejects.toThrow(InvalidIdempotencyKeyError);
    await expect(stateOf(request('k'.repeat(256)))).rejects.toThrow(InvalidIdempotencyKeyError);
    await expect(store.lock(em(), request(randomUUID()))).rejects.toThrow(/inside the write's transaction/);
  });
});

describe('the keyed write', () => {
  const writes = { store, em: () => em() };
  const maker = { answerOf: (result: ExecutionResult) => ({ status: result.errors ? 500 : 201, body: result.data }), stored: (answer: { status: number; body: unknown }) => (answer.status >= 500 ? undefined : { status: answer.status, headers: {}, body: answer.body }) };

  it('keeps the write and its answer together: a failed answer rolls the write back, and a retry runs', async () => {
    const key = randomUUID();
    const name = `written-${key}`;
    const failing = new KeyedWrite(writes, request(key), maker);
    const failed = await failing.run(async ({ em: tx }) => {
      await tx.execute('insert into tenant (id, name, created_at, updated_at) values (?, ?, now(), now())', [randomUUID(), name]);
      return { errors: [] as never[] };
    });
    expect(failed.errors).toEqual([]);
    expect(failing.outcome).toEqual({ kind: 'ran', answer: { status: 500, body: undefined } });
    expect(await database().query('select 1 from tenant where name = $1', [name])).toHaveLength(0);
    expect(await record(key)).toBeUndefined();

    const retry = new KeyedWrite(writes, request(key), maker);
    await retry.run(async ({ em: tx }) => {
      await tx.execute('insert into tenant (id, name, created_at, updated_at) values (?, ?, now(), now())', [randomUUID(), name]);
      return { data: { made: name } };
    });
    expect(await database().query('select 1 from tenant where name = $1', [name])).toHaveLength(1);
    const replay = new KeyedWrite(writes, request(key), maker);
    let ran = false;
    expect(await replay.run(async () => {
      ran = true;
      return {};
    })).toBe(KEY_ANSWERED);
    expect(ran).toBe(false);
    expect(replay.outcome).toEqual({ kind: 'replay', answer: { status: 201, headers: {}, body: { made: name } } });
  });

  it('replays the answer of a request that committed under the key while this one ran, not its own', async () => {
    const key = randomUUID();
    const keyed = new KeyedWrite(writes, request(key), maker);
    let runs = 0;
    await keyed.run(async () => {
      runs++;
      // Another request under the key commits its answer first: as when this one's lock statement took its
      // snapshot just before that commit and its lock just after it.
      if (runs === 1) await em().transactional((tx) => store.record(tx, request(key), CREATED));
      return { data: { mine: true } };
    });
    expect(runs).toBe(1);
    expect(keyed.outcome).toEqual({ kind: 'replay', answer: CREATED });
  });
});

describe('expiry after 24 hours', () => {
  it('frees an expired record\'s key, whatever request it was for', async () => {
    const key = randomUUID();
    await answered(request(key));
    await age(key, 24 * 3600 + 1);
    await answered(request(key, OTHER_BODY), { ...CREATED, status: 200 });
    expect(await stateOf(request(key, OTHER_BODY))).toEqual({ kind: 'replay', answer: { ...CREATED, status: 200 } });
  });

  it('deletes expired records now and then, at most once a minute', async () => {
    const purging = new IdempotencyStore(cipher);
    const [first, second, kept] = [randomUUID(), randomUUID(), randomUUID()];
    for (const key of [first, second, kept]) await answered(request(key));
    await age(first, 24 * 3600 + 1);
    await age(kept, 23 * 3600);
    await purging.purgeNowAndThen(em());
    expect(await record(first)).toBeUndefined();
    expect(await record(kept)).toBeDefined();

    await age(second, 24 * 3600 + 1);
    await purging.purgeNowAndThen(em());
    expect(await record(second)).toBeDefined();
  });
});

describe('concurrent requests', () => {
  it('lets one of 4 concurrent requests under one key run, and tells the others it is in progress', async () => {
    const key = randomUUID();
    const all = deferred();
    let locked = 0;
    // As many as the test's pool has connections: every transaction stays open until all have asked.
    const states = await Promise.all(Array.from({ length: 4 }, () => em().transactional(async (tx) => {
      const state = await store.lock(tx, request(key));
      if (++locked === 4) all.resolve();
      await all.promise;
      return state;
    })));
    expect(states.filter((o) => o.kind === 'free')).toHaveLength(1);
    expect(states.filter((o) => o.kind === 'in-progress')).toHaveLength(3);
  });

  it('replays the answer to every concurrent retry once it is stored', async () => {
    const key = randomUUID();
    await answered(request(key));
    const states = await Promise.all(Array.from({ length: 20 }, () => stateOf(request(key))));
    expect(states).toEqual(Array.from({ length: 20 }, () => ({ kind: 'replay', answer: CREATED })));
  });
});

describe('sealed answers', () => {
  const VALUE = 'sk_live_stored_answer_Qx7';
  const REVEALING: StoredAnswer = { status: 201, headers: {}, body: JSON.stringify({ secrets: [{ name: 'STRIPE', value: VALUE }] }) };

  it('stores the answer sealed under the secrets key: no value in the record, in any form', async () => {
    const key = randomUUID();
    await answered(request(key), REVEALING);
    const [row] = await database().query<{ text: string; fingerprint: string }>(
      `select t::text as text, encode(answer_sealed, 'escape') || encode(answer_sealed, 'hex') || encode(answer_sealed, 'base64') as sealed,
              answer_key_fingerprint as fingerprint from idempotency_record t where key = $1`, [key]);
    expect(row!.fingerprint).toBe(cipher.fingerprint);
    for (const form of [VALUE, Buffer.from(VALUE).toString('hex'), Buffer.from(VALUE).toString('base64')]) {
      expect(JSON.stringify(row)).not.toContain(form);
    }
    expect(await stateOf(request(key))).toEqual({ kind: 'replay', answer: REVEALING });
  });

  it('does not open an answer copied onto another API key\'s record, or with a key that did not seal it', async () => {
    const key = randomUUID();
    await answered(request(key), REVEALING);
    await answered(request(key, CREATE, ACME, OTHER_WRITER));
    await database().query(
      `update idempotency_record o set answer_sealed = w.answer_sealed, answer_key_fingerprint = w.answer_key_fingerprint
         from idempotency_record w where o.key = $1 and o.api_key_id = $2 and w.key = $1 and w.api_key_id = $3`, [key, OTHER_WRITER, WRITER]);
    expect(await stateOf(request(key, CREATE, ACME, OTHER_WRITER))).toEqual({ kind: 'lost' });
    expect(await stateOf(request(key), new IdempotencyStore(new SecretCipher(randomBytes(32))))).toEqual({ kind: 'lost' });
  });

  it('re-seals stored answers under a new key on rotation, and marks those no key opens', async () => {
    const [kept, damaged] = [randomUUID(), randomUUID()];
    await answered(request(kept), REVEALING);
    await answered(request(damaged));
    await database().query(`update idempotency_record set answer_sealed = decode('01' || repeat('00', 40), 'hex') where key = $1`, [damaged]);
    const newKey = randomBytes(32);
    const rotating = new IdempotencyStore(new SecretCipher(newKey, [SECRETS_KEY]));
    const outcome = await rotating.resealAnswers(em(), 1);
    expect(outcome.dropped).toBeGreaterThanOrEqual(1);
    expect(outcome.resealed).toBeGreaterThanOrEqual(1);
    expect(await rotating.resealAnswers(em(), 1)).toEqual({ resealed: 0, dropped: 0 });
    const afterRotation = new IdempotencyStore(new SecretCipher(newKey));
    expect(await stateOf(request(kept), afterRotation)).toEqual({ kind: 'replay', answer: REVEALING });
    // The damaged answer's write happened: a retry hears that its answer was lost, and does not run again.
    expect(await stateOf(request(damaged), afterRotation)).toEqual({ kind: 'lost' });
    expect(await stateOf(request(kept))).toEqual({ kind: 'lost' });
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
