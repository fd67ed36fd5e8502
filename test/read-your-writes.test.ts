// Read your writes' bookkeeping, without a replica (test/scale/read-your-writes.test.ts runs it against one):
// WAL positions order as PostgreSQL's do; a caller's position only rises, and is forgotten after its time; a
// Redis that cannot answer sends the caller's reads to the primary; and a write through the app, on either
// door, records its key and tenant at a position past the write before its answer leaves, while a refused
// write and a read record nothing.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ReadReplicas } from '../src/db/read-replicas.ts';
import { RedisWritePositions } from '../src/db/redis-write-positions.ts';
import { formatWalPosition, parseWalPosition, sortableWalPosition, UNKNOWN_WAL_POSITION, type WalPosition } from '../src/db/wal-position.ts';
import { LocalWritePositions } from '../src/db/write-positions.ts';
import { issueApiKey } from '../src/modules/tenancy/api-key.service.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, ACME_DEPLOYMENT, GLOBEX, importFixture, newCipher } from './support/fixtures.ts';
import { REDIS_SERVER, startRedis } from './support/redis-server.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

describe('WAL positions', () => {
  it('order as PostgreSQL orders pg_lsn, which their text does not', () => {
    const texts = ['0/0', '0/16B3748', '0/FFFFFFFF', '1/0', '16/B374D848', 'FFFFFFFF/FFFFFFFF'];
    const positions = texts.map(parseWalPosition);
    expect([...positions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(positions);
    expect(positions.map(formatWalPosition)).toEqual(texts);
    // The form kept in Redis and sent between processes compares as text as the positions do.
    expect(positions.map(sortableWalPosition)).toEqual([...positions.map(sortableWalPosition)].sort());
    expect(parseWalPosition('ffffffff/ffffffff')).toBe(UNKNOWN_WAL_POSITION);
    expect(() => parseWalPosition('16-B374D848')).toThrow(/not a WAL position/);
  });
});

describe('a caller\'s write position in memory', () => {
  it('only rises while kept, and is forgotten once its time is up', () => {
    vi.useFakeTimers();
    try {
      const positions = new LocalWritePositions();
      positions.noteAtOnce('key/tenant', 200n, 1000);
      positions.noteAtOnce('key/tenant', 100n, 1000); // an earlier write answered later
      expect(positions.of('key/tenant')).toBe(200n);
      expect(positions.of('other/tenant')).toBeUndefined();
      vi.advanceTimersByTime(999);
      expect(positions.of('key/tenant')).toBe(200n);
      vi.advanceTimersByTime(1);
      expect(positions.of('key/tenant')).toBeUndefined();
      positions.noteAtOnce('key/tenant', 50n, 1000); // the expired 200 holds nothing back
      expect(positions.of('key/tenant')).toBe(50n);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('a caller\'s write position in Redis', () => {
  it('sends the caller\'s reads to the primary while Redis cannot answer, and never fails a write', async () => {
    const positions = new RedisWritePositions('redis://127.0.0.1:1');
    try {
      await expect(positions.note('key/tenant', 200n, 1000)).resolves.toBeUndefined();
      expect(await positions.of('key/tenant')).toBe(UNKNOWN_WAL_POSITION);
    } finally {
      await positions.close();
    }
  });

  it.skipIf(!REDIS_SERVER)('only rises while kept, and is forgotten once its time is up', async () => {
    const redis = await startRedis();
    const positions = new RedisWritePositions(redis.url, { keyPrefix: 'test' });
    try {
      await vi.waitFor(async () => expect(await positions.of('key/tenant')).toBeUndefined());
      await positions.note('key/tenant', 0x1_0000_0000n, 300);
      await positions.note('key/tenant', 0xFFFF_FFFFn, 300);
      expect(await positions.of('key/tenant')).toBe(0x1_0000_0000n);
      await vi.waitFor(async () => expect(await positions.of('key/tenant')).toBeUndefined(), { timeout: 2000 });
    } finally {
      await positions.close();
      await redis.stop();
    }
  });
});

/** The app's store of write positions, with each note it was given; slow, as Redis far away would be. */
class NotedPositions extends LocalWritePositions {
  readonly notes: { caller: string; position: WalPosition; ttlMs: number }[] = [];
  override async note(caller: string, position: WalPosition, ttlMs: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 100));
    this.notes.push({ caller, position, ttlMs });
    return super.note(caller, position, ttlMs);
  }
}

describe('a write through the app', () => {
  let db: TestDatabase;
  let app: RunningApp;
  let replicas: ReadReplicas;
  const positions = new NotedPositions();
  const keys = {} as Record<'writer' | 'reader', { key: string; caller: string }>;

  beforeAll(async () => {
    db = await createTestDatabase();
    const cipher = newCipher();
    await importFixture(db.orm.em.fork(), cipher);
    for (const [name, mayWrite] of [['writer', true], ['reader', false]] as const) {
      const { key, apiKey } = await issueApiKey(db.orm.em.fork(), { tenantIds: [ACME], name, mayReadSecrets: false, mayWrite });
      keys[name] = { key, caller: `${apiKey.id}/${ACME}` };
    }
    // No replica to read: the positions are still recorded, as they are with replicas out of rotation.
    replicas = await ReadReplicas.open(db.orm, [], {
      maxLagSeconds: 10, timeouts: { poolMax: 2, connectTimeoutMs: 5000, statementTimeoutMs: 5000 }, writePositions: positions,
    });
    app = await startApp(db.orm, cipher, undefined, { replicas });
  });
  afterAll(async () => {
    await app?.close();
    await replicas?.close();
    await db?.drop();
  });

  const walNow = async () => parseWalPosition((await db.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn'))[0]!.lsn);
  const rest = (method: string, path: string, key: string, body?: unknown) => fetch(new URL(path, app.url), {
    method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const createBody = (name: string) => ({ name, source: 'internal_docker', source_config: {}, source_revision_config: {}, secrets: [] });

  it('records its key and tenant at a position past the write before answering, on both doors', async () => {
    positions.notes.length = 0;
    const before = await walNow();
    const created = await rest('POST', '/v2/deployments', keys.writer.key, createBody('noted'));
    expect(created.status).toBe(201);
    expect(positions.notes).toEqual([{ caller: keys.writer.caller, position: expect.any(BigInt), ttlMs: expect.any(Number) }]);
    expect(positions.notes[0]!.position).toBeGreaterThan(before);
    expect(positions.notes[0]!.position).toBeLessThanOrEqual(await walNow());
    // Kept while a replica in rotation (at most REPLICA_MAX_LAG behind) may lack the write.
    expect(positions.notes[0]!.ttlMs).toBeGreaterThan(10_000);
    expect(positions.of(keys.writer.caller)).toBe(positions.notes[0]!.position);

    const id = ((await created.json()) as { id: string }).id;
    const deleted = await app.graphql('mutation($id: ID!) { deleteDeployment(input: { id: $id }) { __typename } }', { 'x-api-key': keys.writer.key }, { id });
    expect(deleted.body).toEqual({ data: { deleteDeployment: { __typename: 'DeleteDeploymentPayload' } } });
    expect(positions.notes).toHaveLength(2);
    expect(positions.notes[1]).toMatchObject({ caller: keys.writer.caller });
    expect(positions.notes[1]!.position).toBeGreaterThan(positions.notes[0]!.position);
  });

  it('records a data plane\'s claim, made for all its tenants at once, for each of them', async () => {
    const { key, apiKey } = await issueApiKey(db.orm.em.fork(), { tenantIds: [ACME, GLOBEX], name: 'plane', mayReadSecrets: false, mayReconcile: true });
    positions.notes.length = 0;
    const claimed = await rest('POST', '/v2/data-plane/claims', key, { limit: 1 });
    expect(claimed.status).toBe(200);
    expect(positions.notes.map((note) => note.caller).sort()).toEqual([`${apiKey.id}/${ACME}`, `${apiKey.id}/${GLOBEX}`].sort());
  });

  it('records nothing for a refused write or a read', async () => {
    positions.notes.length = 0;
    expect((await rest('POST', '/v2/deployments', keys.reader.key, createBody('refused'))).status).toBe(403);
    expect((await rest('POST', '/v2/deployments', keys.writer.key, createBody('taken'))).status).toBe(201);
    positions.notes.length = 0;
    expect((await rest('POST', '/v2/deployments', keys.writer.key, createBody('taken'))).status).toBe(409);
    expect((await rest('GET', `/v2/deployments/${ACME_DEPLOYMENT}`, keys.writer.key)).status).toBe(200);
    expect((await app.graphql('{ deployments { resources { name } } }', { 'x-api-key': keys.reader.key })).status).toBe(200);
    expect(positions.notes).toEqual([]);
    expect(positions.of(keys.reader.caller)).toBeUndefined();
  });
});
