// Issue 52's "The first answer, always", with the real service process killed (SIGKILL) in the middle of a write
// under an Idempotency-Key: after its commit, the retry gets the first answer, the first time it asks once the
// service is back; before its commit, the retry runs the write at once (no lease to wait out); once its COMMIT
// was sent, the write and its answer were kept together. Either way one deployment exists.
import { randomBytes, randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import { ACME, importFixture, issueKey } from './support/fixtures.ts';
import { holdLock, lockWaiters } from './support/parked-writes.ts';
import { startService, type ServiceProcess } from './support/service-process.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const SECRETS_KEY = randomBytes(32);
let db: TestDatabase;
let writerKey: string;
let service: ServiceProcess | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  await importFixture(db.orm.em.fork(), new SecretCipher(SECRETS_KEY));
  writerKey = await issueKey(db.orm.em, [ACME], true, true);
});
afterEach(async () => {
  await service?.stop();
  service = undefined;
});
afterAll(() => db?.drop());

const start = async () => (service = await startService({ DATABASE_URL: db.url, SECRETS_KEY: SECRETS_KEY.toString('base64'), LOG_LEVEL: 'warn' }));

async function killed(running: ServiceProcess): Promise<void> {
  running.kill('SIGKILL');
  await running.exited;
  service = undefined;
}

const createBody = (name: string) => JSON.stringify({
  name, source: 'external_docker', source_config: { deployment_type: 'dev' },
  source_revision_config: { image_uri: `registry.example.com/${name}:1` }, secrets: [{ name: 'TOKEN', value: `value-of-${name}` }],
});

function create(baseUrl: string, name: string, key: string) {
  return fetch(`${baseUrl}/v2/deployments`, {
    method: 'POST', headers: { 'x-api-key': writerKey, 'content-type': 'application/json', 'idempotency-key': key }, body: createBody(name),
  });
}

/**
 * A proxy that passes requests to the service and never passes its answers back: a client whose answer was
 * lost on the way (a gateway killed as it replied, a connection cut).
 */
async function answerLosingProxy(target: URL): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => { client.destroy(); upstream.destroy(); });
    }
    client.pipe(upstream);
    upstream.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const deploymentsNamed = async (name: string) =>
  db.query<{ id: string }>('select id from deployment where tenant_id = $1 and name = $2', [ACME, name]);
const recordOf = async (key: string) => db.query('select 1 from idempotency_record where key = $1', [key]);

describe('a write under an Idempotency-Key whose gateway is killed', () => {
  it('after its commit: the first retry once the service is back gets its answer, and nothing runs twice', async () => {
    const running = await start();
    const proxy = await answerLosingProxy(new URL(running.url));
    const name = `after-commit-${randomUUID().slice(0, 8)}`;
    const key = randomUUID();
    const lost = create(proxy.url, name, key).then(() => 'answered', () => 'no answer');
    // The record is visible to others only once the write's transaction has committed.
    await expect.poll(() => recordOf(key), { timeout: 30_000, interval: 20 }).toHaveLength(1);
    await killed(running);
    await proxy.close();
    expect(await lost).toBe('no answer');

    const back = await start();
    const retry = await create(back.url.replace(/\/graphql$/, ''), name, key);
    const body = await retry.json();
    expect({ status: retry.status, replayed: retry.headers.get('idempotent-replayed') }).toEqual({ status: 201, replayed: 'true' });
    const made = await deploymentsNamed(name);
    expect(made).toHaveLength(1);
    expect(body).toMatchObject({ id: made[0]!.id, name, secrets: [{ name: 'TOKEN', value: `value-of-${name}` }] });
    expect(retry.headers.get('location')).toBe(`/v2/deployments/${made[0]!.id}`);
  });

  /**
   * Kills the service while its keyed create of `name` waits behind `lock` (held by the test) in a statement
   * whose text matches `waitsIn`; returns once PostgreSQL has ended the write's session.
   */
  async function killedWhileWaiting(lock: string, waitsIn: RegExp, name: string, key: string): Promise<void> {
    const running = await start();
    // A first keyed write: the gateway's purge of expired records (once a minute) is behind it.
    const first = await create(running.url.replace(/\/graphql$/, ''), `${name}-first`, randomUUID());
    expect(first.status, await first.text()).toBe(201);
    const holder = await holdLock(db, lock);
    let backend: number;
    try {
      const sent = create(running.url.replace(/\/graphql$/, ''), name, key).then(() => 'answered', () => 'no answer');
      // The write's statement among the backends waiting (another of the service's may wait on something else);
      // PostgreSQL shows the first 1 kB of a text (track_activity_query_size).
      const waiting = async () => (await lockWaiters(db, 1)).find((candidate) => waitsIn.test(candidate.query));
      await expect.poll(waiting, { timeout: 30_000, interval: 20 }).toBeDefined();
      backend = (await waiting())!.pid;
      await killed(running);
      expect(await sent).toBe('no answer');
    } finally {
      await holder.release();
    }
    await expect.poll(async () => db.query('select 1 from pg_stat_activity where pid = $1', [backend]), { timeout: 30_000, interval: 20 }).toHaveLength(0);
  }

  it('before its commit: nothing of it is kept, and the first retry runs it', async () => {
    const name = `before-commit-${randomUUID().slice(0, 8)}`;
    const key = randomUUID();
    // The name's check waits: the gateway dies with its transaction open, and PostgreSQL rolls it back.
    await killedWhileWaiting('lock table deployment in access exclusive mode', /^select deployment_name_taken/, name, key);
    expect(await deploymentsNamed(name)).toHaveLength(0);
    expect(await recordOf(key)).toHaveLength(0);

    const back = await start();
    const retry = await create(back.url.replace(/\/graphql$/, ''), name, key);
    expect({ status: retry.status, replayed: retry.headers.get('idempotent-replayed') }).toEqual({ status: 201, replayed: null });
    expect(await deploymentsNamed(name)).toHaveLength(1);
  });

  it('once its COMMIT is sent: the write and its answer are kept together, and the retry gets that answer', async () => {
    const name = `commit-sent-${randomUUID().slice(0, 8)}`;
    const key = randomUUID();
    // The rows, the answer and the COMMIT go in one message (src/db/statements-sent-with-next.ts): the answer's
    // insert waits behind the test's lock, and once it is let go the session carries out the rest, COMMIT too.
    await killedWhileWaiting('lock table idempotency_record in share mode', /^insert into "?deployment"? /, name, key);
    const made = await deploymentsNamed(name);
    expect(made).toHaveLength(1);
    expect(await recordOf(key)).toHaveLength(1);

    const back = await start();
    const retry = await create(back.url.replace(/\/graphql$/, ''), name, key);
    expect({ status: retry.status, replayed: retry.headers.get('idempotent-replayed') }).toEqual({ status: 201, replayed: 'true' });
    expect(await retry.json()).toMatchObject({ id: made[0]!.id, name });
  });
});
