// Operations execute at most `limit` at once (limits/operations-at-once.ts): the others wait their turn, first
// come first served, and one that waits longer than `waitMs` is answered 503 with Retry-After on either door,
// as a wait for a pooled connection is; a caller without a valid key is refused without waiting. An operation
// takes its turn before it makes its context, and one whose client has gone by then runs nothing, gives the
// turn back and logs no error. Open subscription streams hold no turn. Real PostgreSQL: a lock held by another session keeps the running operations in the
// database, where pg_stat_activity shows them.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/observability/logger.ts';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { subscribe, type EventStream } from './support/event-stream.ts';
import { startLiveService, type LiveService } from './support/live-data.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const LIMIT = 2;
// Long enough that a test sees a queue form before its waits are over, however busy the machine: what is
// asserted is the order of events, never how long a wait took.
const WAIT_MS = 3000;
const PAGE = '{ deployments(limit: 5) { resources { uuid name status sourceConfig { repoUrl resourceSpec { cpu memoryMb } } } } }';

let db: TestDatabase;
let service: LiveService;
/** The service's log lines at level error and above. */
const errorLines: string[] = [];
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  key = await issueKey(db.orm.em, [ACME]);
  const logger = createLogger('error', { write: (line: string) => void errorLines.push(line) });
  service = await startLiveService(db, cipher, { options: { operationsAtOnce: { limit: LIMIT, waitMs: WAIT_MS }, logger } });
});
afterAll(async () => {
  await service?.close();
  await db?.drop();
});

const rest = (path: string) => fetch(`${service.app.url}${path}`, { headers: { 'x-api-key': key } });
const graphql = (query: string) => service.app.graphql(query, { 'x-api-key': key });

/** Backends of this database waiting for a lock: the operations the lock holds in PostgreSQL. */
async function waitingOnLock(observer: pg.Client): Promise<number> {
  const { rows } = await observer.query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
  return rows[0].n;
}

async function until(condition: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('operations at once', () => {
  it('serves many concurrent requests of both doors with the answers each gets alone', async () => {
    const alone = { rest: await (await rest('/v2/deployments?limit=5')).json(), graphql: (await graphql(PAGE)).body };
    const together = await Promise.all(Array.from({ length: 12 }, async (_, i) => (i % 2
      ? { door: 'rest' as const, body: await (await rest('/v2/deployments?limit=5')).json() }
      : { door: 'graphql' as const, body: (await graphql(PAGE)).body })));
    for (const { door, body } of together) expect(body).toEqual(alone[door]);
  });

  it('runs at most the limit in the database; another waits, then gets 503 with Retry-After on either door', async () => {
    const locker = new pg.Client({ connectionString: db.url });
    const observer = new pg.Client({ connectionString: db.url });
    await Promise.all([locker.connect(), observer.connect()]);
    try {
      await locker.query('begin');
      await locker.query('lock table deployment in access exclusive mode');
      // The limit's worth of pages, held by the lock.
      const held = [rest('/v2/deployments?limit=5'), graphql(PAGE)] as const;
      await until(async () => (await waitingOnLock(observer)) === LIMIT);

      const waiting = Promise.all([rest('/v2/deployments?limit=5'), graphql(PAGE)]);
      // They wait their turn (an operation refused at once never joins the queue)...
      await until(async () => service.app.app.operations.waiting === 2);
      const [restWaiting, graphqlWaiting] = await waiting;
      expect(restWaiting.status).toBe(503);
      expect(restWaiting.headers.get('retry-after')).toBe('5');
      expect(await restWaiting.json()).toEqual({ detail: 'Service Unavailable: the database cannot be reached, retry shortly' });
      expect(graphqlWaiting.status).toBe(503);
      expect(graphqlWaiting.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
      // ...and are refused while the lock still holds the running ones (until the statement timeout, 10 s):
      // they never reached the database, nor waited for the lock.
      expect(service.app.app.operations.waiting).toBe(0);
      expect(await waitingOnLock(observer)).toBe(LIMIT);

      // A caller without a valid key is refused as soon as it asks: it never waits for a turn (every turn is
      // still taken, so one that did would be answered 503 when its wait is over).
      const [restRefused, graphqlRefused] = await Promise.all([
        fetch(`${service.app.url}/v2/deployments?limit=5`, { headers: { 'x-api-key': `${key}x` } }),
        service.app.graphql(PAGE, { 'x-api-key': `${key}x` }),
      ]);
      expect(restRefused.status).toBe(401);
      expect(graphqlRefused.status).toBe(401);

      await locker.query('rollback');
      const [heldRest, heldGraphql] = await Promise.all(held);
      expect(heldRest.status).toBe(200);
      expect(heldGraphql.status).toBe(200);
    } finally {
      await locker.query('rollback').catch(() => {});
      await Promise.all([locker.end(), observer.end()]);
    }
    expect((await rest('/v2/deployments?limit=5')).status).toBe(200);
  });

  it('gets back the turn of a REST read whose client hangs up while it waits, and logs no error for it', async () => {
    const locker = new pg.Client({ connectionString: db.url });
    const observer = new pg.Client({ connectionString: db.url });
    await Promise.all([locker.connect(), observer.connect()]);
    const lock = async () => {
      await locker.query('begin');
      await locker.query('lock table deployment in access exclusive mode');
    };
    try {
      await lock();
      const held = [rest('/v2/deployments?limit=5'), graphql(PAGE)] as const;
      await until(async () => (await waitingOnLock(observer)) === LIMIT);
      // Three REST reads wait for a turn; their clients give up, and the turns come free while the requests are
      // still queued: each is granted a turn for a request that has ended.
      const clients = [0, 1, 2].map(() => new AbortController());
      const gaveUp = clients.map((client) => fetch(`${service.app.url}/v2/deployments?limit=5`, { headers: { 'x-api-key': key }, signal: client.signal }).catch(() => 'gave up'));
      await until(async () => service.app.app.operations.waiting === 3);
      clients.forEach((client) => client.abort());
      expect(await Promise.all(gaveUp)).toEqual(['gave up', 'gave up', 'gave up']);
      // Still queued when the turns come free.
      expect(service.app.app.operations.waiting).toBe(3);
      const errorsBefore = errorLines.length;
      await locker.query('rollback');
      expect((await Promise.all(held)).map((answer) => answer.status)).toEqual([200, 200]);

      // Every turn is free again: as many pages as the limit reach the database at once.
      await lock();
      const again = [rest('/v2/deployments?limit=5'), rest('/v2/deployments?limit=5')];
      await until(async () => (await waitingOnLock(observer)) === LIMIT);
      await locker.query('rollback');
      expect((await Promise.all(again)).map((answer) => answer.status)).toEqual([200, 200]);
      // Nothing went wrong for the requests that ended: nothing to tell the operator.
      expect(errorLines.slice(errorsBefore)).toEqual([]);
    } finally {
      await locker.query('rollback').catch(() => {});
      await Promise.all([locker.end(), observer.end()]);
    }
  });

  it('gives a turn to each waiting operation in order as the running ones finish', async () => {
    const answers = await Promise.all(Array.from({ length: LIMIT * 4 }, () => rest('/v2/deployments?limit=5')));
    expect(answers.map((answer) => answer.status)).toEqual(Array(LIMIT * 4).fill(200));
  });

  it('holds no turn for an open subscription stream', async () => {
    const streams: EventStream[] = [];
    try {
      for (let i = 0; i <= LIMIT; i++) streams.push(await subscribe(service.app.url, key, 'subscription { deploymentUpdated { deploymentId } }'));
      expect(streams.map((stream) => stream.status)).toEqual(Array(LIMIT + 1).fill(200));
      const page = await graphql(PAGE);
      expect(page.status).toBe(200);
      expect(page.body.data.deployments.resources.length).toBeGreaterThan(0);
    } finally {
      streams.forEach((stream) => stream.close());
    }
  });
});
