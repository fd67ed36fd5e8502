// A database that stops answering altogether (a network partition: the connection stays open, nothing comes
// back, not even PostgreSQL's own statement-timeout error) cannot hold a request either: the client-side read
// timeout (src/db/callback-query-client.ts) fails the statement, both doors answer 503 with Retry-After, and
// the connection is closed, so that the pool does not hand it out again once the network is back.
import { MikroORM } from '@mikro-orm/postgresql';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrmConfig, type AppOrm } from '../src/db/orm-config.ts';
import { entities } from '../src/modules/entities.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const STATEMENT_TIMEOUT_MS = 300;
/** The client gives up a second after the server would have cancelled the statement (orm-config.ts). */
const READ_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 1000;

/** A TCP relay to the test database that can stop passing the server's answers on (and start again). */
class PartitionableRelay {
  private readonly server: net.Server;
  private silenced = false;
  private readonly held: { socket: net.Socket; chunks: Buffer[] }[] = [];

  constructor(target: { host: string; port: number }) {
    this.server = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      const entry = { socket: client, chunks: [] as Buffer[] };
      this.held.push(entry);
      client.on('data', (chunk) => upstream.write(chunk));
      upstream.on('data', (chunk) => (this.silenced ? entry.chunks.push(chunk) : client.write(chunk)));
      const close = () => { client.destroy(); upstream.destroy(); };
      client.on('close', close).on('error', close);
      upstream.on('close', close).on('error', close);
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  /** From now on the server's answers are held back, as in a partition. */
  silence(): void {
    this.silenced = true;
  }

  /** The network is back: what was held back arrives, and answers flow again. */
  restore(): void {
    this.silenced = false;
    for (const entry of this.held) {
      if (!entry.socket.destroyed) for (const chunk of entry.chunks) entry.socket.write(chunk);
      entry.chunks = [];
    }
  }

  close(): Promise<void> {
    for (const entry of this.held) entry.socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let db: TestDatabase;
let relay: PartitionableRelay;
let orm: AppOrm;
let app: RunningApp;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  // Verified once here, so that authentication does not need the database below.
  key = await issueKey(db.orm.em, [ACME]);
  const target = new URL(db.url);
  relay = new PartitionableRelay({ host: target.hostname, port: Number(target.port) });
  const viaRelay = new URL(db.url);
  viaRelay.hostname = '127.0.0.1';
  viaRelay.port = String(await relay.listen());
  orm = (await MikroORM.init(createOrmConfig({
    entities, clientUrl: viaRelay.toString(), poolMax: 1, timeouts: { connectTimeoutMs: 1000, statementTimeoutMs: STATEMENT_TIMEOUT_MS },
  }))) as unknown as AppOrm;
  app = await startApp(orm, cipher);
});
afterAll(async () => {
  await app?.close();
  await orm?.close(true);
  await relay?.close();
  await db?.drop();
});

const backendPid = async () => ((await orm.em.getConnection().execute('select pg_backend_pid() as pid')) as { pid: number }[])[0]!.pid;

describe('a database that stops answering', () => {
  it('fails the statement after the read timeout, answers 503 on both doors, and drops the connection', async () => {
    const pidBefore = await backendPid();
    relay.silence();
    try {
      const started = Date.now();
      const rest = await fetch(`${app.url}/v2/deployments?limit=5`, { headers: { 'x-api-key': key } });
      const restTook = Date.now() - started;
      expect(rest.status).toBe(503);
      expect(rest.headers.get('retry-after')).toBe('5');
      expect(await rest.json()).toEqual({ detail: 'Service Unavailable: the database cannot be reached, retry shortly' });
      // Not before the read timeout (the server's own cancellation never arrives). No upper bound: without the
      // read timeout the request would hang until the test's own timeout; how soon after it is the machine's.
      expect(restTook).toBeGreaterThanOrEqual(READ_TIMEOUT_MS - 50);

      const graphql = await app.graphql('{ deployments(limit: 5) { resources { name } } }', { 'x-api-key': key });
      expect(graphql.status).toBe(503);
      expect(graphql.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      relay.restore();
    }
    // The network is back: requests are served, on a new connection (the pool has one: the stuck one is gone).
    const after = await fetch(`${app.url}/v2/deployments?limit=5`, { headers: { 'x-api-key': key } });
    expect(after.status).toBe(200);
    expect(await backendPid()).not.toBe(pidBefore);
  });

  it('still serves statements that answer in time, in the promise and the callback form', async () => {
    const pool = await orm.em.getConnection().getNativeClient();
    const client = await pool.connect();
    try {
      expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
      const viaCallback = await new Promise((resolve, reject) => {
        client.query('select $1::int as two', [2], (error, result) => (error ? reject(error) : resolve(result.rows)));
      });
      expect(viaCallback).toEqual([{ two: 2 }]);
      await expect(client.query('select * from no_such_table')).rejects.toThrow(/no_such_table/);
    } finally {
      client.release();
    }
  });
});
