// A lost database turns into fast 503s and the service recovers by itself: the real service process, on a
// PostgreSQL of this test's own that is stopped under load and started again on the same port and data.
import { MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabaseIfMissing, migrate } from '../src/db/database.ts';
import { freePort, startEmbeddedPostgres, type RunningPostgres } from '../src/db/embedded-postgres.ts';
import { createOrmConfig, type AppOrm } from '../src/db/orm-config.ts';
import { entities } from '../src/modules/entities.ts';
import { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import { ACME, importFixture, issueKey } from './support/fixtures.ts';
import { startService, type ServiceProcess } from './support/service-process.ts';

const DATABASE = 'faults';
const CONNECT_TIMEOUT_MS = 1000;
const STATEMENT_TIMEOUT_MS = 2000;
/** Connect timeout + statement timeout + a margin for a loaded 2-core machine. */
const REQUEST_BOUND_MS = 6000;
/** The client gives up here; no request may get this far. */
const CLIENT_ABORT_MS = 8000;
const POOL_MAX = 10;
const READY_CACHE_MS = 1000;
const DOWN_MS = 3000;
const RECOVERY_BOUND_MS = 10_000;
const WORKERS = 4;

let root: string;
let clusterDir: string;
let port: number;
let postgres: RunningPostgres | undefined;
let service: ServiceProcess | undefined;
let apiKey: string;
let exitedWhile: number | undefined;

const startPostgres = () => startEmbeddedPostgres({ clusterDir, port, persistent: true });

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'dmg-db-faults-'));
  await fs.chmod(root, 0o711); // PostgreSQL runs as another user when the tests run as root
  clusterDir = path.join(root, 'cluster');
  // A fixed port, so that the restarted server is where the service's DATABASE_URL points.
  port = await freePort();
  postgres = await startPostgres();
  await createDatabaseIfMissing(postgres.databaseUrl('postgres'), DATABASE);
  const url = postgres.databaseUrl(DATABASE);

  // The same key encrypts the fixture's secrets here and decrypts them in the service.
  const secretsKey = randomBytes(32);
  const orm = (await MikroORM.init(createOrmConfig({ entities, clientUrl: url, poolMax: 2 }))) as unknown as AppOrm;
  try {
    await migrate(orm);
    await importFixture(orm.em.fork(), new SecretCipher(secretsKey));
    apiKey = await issueKey(orm.em, [ACME], true);
  } finally {
    await orm.close(true);
  }

  service = await startService({
    DATABASE_URL: url,
    SECRETS_KEY: secretsKey.toString('base64'),
    DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
    DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    DB_POOL_MAX: String(POOL_MAX),
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'warn',
  });
  void service.exited.then(() => { exitedWhile ??= Date.now(); });
});

afterAll(async () => {
  if (service && exitedWhile === undefined) {
    service.kill('SIGTERM');
    const code = await Promise.race([service.exited, sleep(15_000, 'timeout' as const)]);
    if (code === 'timeout') {
      service.kill('SIGKILL');
      await service.exited;
    }
  }
  await postgres?.stop();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

interface Outcome {
  kind: 'rest' | 'graphql' | 'ready';
  start: number;
  end: number;
  status?: number;
  retryAfter?: string | null;
  body?: string;
  error?: string;
}

const GRAPHQL_QUERY = '{ deployments(limit: 5) { resources { name } } }';

async function call(kind: Outcome['kind'], baseUrl: string): Promise<Outcome> {
  const start = Date.now();
  try {
    const signal = AbortSignal.timeout(CLIENT_ABORT_MS);
    const response = kind === 'rest'
      ? await fetch(`${baseUrl}/v2/deployments?limit=5`, { headers: { 'x-api-key': apiKey }, signal })
      : kind === 'graphql'
        ? await fetch(`${baseUrl}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', 'x-api-key': apiKey },
          body: JSON.stringify({ query: GRAPHQL_QUERY }),
          signal,
        })
        : await fetch(`${baseUrl}/ready`, { signal });
    const body = await response.text();
    return { kind, start, end: Date.now(), status: response.status, retryAfter: response.headers.get('retry-after'), body };
  } catch (error) {
    const err = error as Error & { cause?: { code?: string } };
    return { kind, start, end: Date.now(), error: `${err.name}: ${err.message}${err.cause?.code ? ` (${err.cause.code})` : ''}` };
  }
}

const describeOutcome = (o: Outcome, t0: number) =>
  `${o.kind} ${o.start - t0}..${o.end - t0}ms ${o.status ?? o.error} ${o.body?.slice(0, 200) ?? ''}`;

/** Connections the service holds on its database, seen from the server (this client is on another database). */
async function serviceConnections(url: string): Promise<Array<{ pid: number; state: string; query: string }>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `select pid, state, query from pg_stat_activity where datname = $1 and backend_type = 'client backend' and pid <> pg_backend_pid()`,
      [DATABASE],
    );
    return rows;
  } finally {
    await client.end();
  }
}

describe('a lost database', () => {
  it('turns into fast 503s and the service recovers by itself', { timeout: 60_000 }, async () => {
    const baseUrl = service!.url.replace(/\/graphql$/, '');
    // Sanity: the data is there and both doors serve it.
    const first = await call('rest', baseUrl);
    expect(first.status, first.body).toBe(200);
    expect(JSON.parse(first.body!).resources.length).toBeGreaterThan(0);
    const firstGraphql = await call('graphql', baseUrl);
    expect(firstGraphql.status, firstGraphql.body).toBe(200);
    expect(JSON.parse(firstGraphql.body!).data.deployments.resources.length).toBeGreaterThan(0);

    const t0 = Date.now();
    const outcomes: Outcome[] = [];
    const probes: Outcome[] = [];
    let running = true;
    const workers = Array.from({ length: WORKERS }, async (_, worker) => {
      for (let i = worker; running; i++) {
        outcomes.push(await call(i % 2 === 0 ? 'rest' : 'graphql', baseUrl));
        await sleep(20); // a steady stream, without starving PostgreSQL's restart of CPU
      }
    });
    const prober = (async () => {
      while (running) {
        probes.push(await call('ready', baseUrl));
        await sleep(200);
      }
    })();

    try {
      await sleep(2000);
      const stopBegin = Date.now();
      await postgres!.stop();
      postgres = undefined;
      const down = Date.now();
      await sleep(DOWN_MS);
      const restartBegin = Date.now();
      postgres = await startPostgres();
      const up = Date.now();

      // Load goes on until the last 3 s were all 200 (or the recovery bound is well past).
      for (;;) {
        await sleep(250);
        const now = Date.now();
        const recent = outcomes.filter((o) => o.start >= now - 3000 && o.start >= up);
        if (now - up >= 3000 && recent.length >= 20 && recent.every((o) => o.status === 200)) break;
        if (now - up > RECOVERY_BOUND_MS + 3000) break;
      }
      running = false;
      await Promise.all([...workers, prober]);
      const log = () => [...outcomes, ...probes].sort((a, b) => a.start - b.start).map((o) => describeOutcome(o, t0)).join('\n');
      const phases = `stop ${stopBegin - t0}, down ${down - t0}, restart ${restartBegin - t0}, up ${up - t0} (ms)`;

      // The process never exited.
      expect(exitedWhile, service!.output()).toBeUndefined();

      // Every request was answered, in bounded time, with 200 or 503 (never 500, never a hang).
      const unanswered = outcomes.filter((o) => o.error !== undefined);
      expect(unanswered.map((o) => describeOutcome(o, t0)), phases).toEqual([]);
      const slow = outcomes.filter((o) => o.end - o.start > REQUEST_BOUND_MS);
      expect(slow.map((o) => describeOutcome(o, t0)), phases).toEqual([]);
      const unexpected = outcomes.filter((o) => o.status !== 200 && o.status !== 503);
      expect(unexpected.map((o) => describeOutcome(o, t0)), phases).toEqual([]);

      // Before the fault: all served.
      const before = outcomes.filter((o) => o.end < stopBegin);
      expect(before.length).toBeGreaterThan(10);
      expect(before.filter((o) => o.status !== 200).map((o) => describeOutcome(o, t0))).toEqual([]);

      // While the database was down: 503 with Retry-After, in each door's error format.
      const whileDown = outcomes.filter((o) => o.start >= down && o.end <= restartBegin);
      expect(whileDown.filter((o) => o.kind === 'rest').length, phases).toBeGreaterThanOrEqual(4);
      expect(whileDown.filter((o) => o.kind === 'graphql').length, phases).toBeGreaterThanOrEqual(4);
      for (const o of whileDown) {
        const what = describeOutcome(o, t0);
        expect(o.status, what).toBe(503);
        expect(o.retryAfter, what).toBe('5');
        const body = JSON.parse(o.body!);
        if (o.kind === 'rest') {
          expect(body, what).toEqual({ detail: expect.any(String) });
        } else {
          expect(body.errors?.[0]?.extensions?.code, what).toBe('SERVICE_UNAVAILABLE');
          expect(body.data ?? null, what).toBeNull();
        }
      }

      // After the restart: 200s come back within the bound and stay.
      const after = outcomes.filter((o) => o.start >= up).sort((a, b) => a.start - b.start);
      const lastFailure = after.findLastIndex((o) => o.status !== 200);
      const recovered = after[lastFailure + 1];
      expect(recovered, `${phases}\n${log()}`).toBeDefined();
      expect(recovered!.start - up, `${phases}\n${log()}`).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
      expect(after.length - (lastFailure + 1), phases).toBeGreaterThanOrEqual(20);
      // Served from the data, not just "200": the page has the fixture's deployment.
      expect(JSON.parse(after.at(-1)!.body!)).toMatchObject(after.at(-1)!.kind === 'rest'
        ? { resources: [expect.objectContaining({ name: expect.any(String) })] }
        : { data: { deployments: { resources: [{ name: expect.any(String) }] } } });

      // /ready: 503 (with the database named) while down, 200 once recovered.
      // /ready shares one check among the probes of a moment (READY_CACHE_MS): allow it that long to notice.
      const readyDown = probes.filter((o) => o.start >= down + READY_CACHE_MS && o.end <= restartBegin);
      expect(readyDown.length, phases).toBeGreaterThanOrEqual(3);
      for (const o of readyDown) {
        expect(o.status, describeOutcome(o, t0)).toBe(503);
        expect(JSON.parse(o.body!), describeOutcome(o, t0)).toMatchObject({ status: 'unavailable', checks: { database: 'unreachable' } });
      }
      const readyAfter = probes.filter((o) => o.start >= recovered!.start + READY_CACHE_MS);
      expect(readyAfter.length, phases).toBeGreaterThanOrEqual(3);
      expect(readyAfter.filter((o) => o.status !== 200).map((o) => describeOutcome(o, t0))).toEqual([]);
      expect(probes.filter((o) => o.error !== undefined).map((o) => describeOutcome(o, t0))).toEqual([]);

      // No connection leak: at most the pool and the API-key cache's one LISTEN connection.
      const connections = await serviceConnections(postgres.databaseUrl('postgres'));
      const listening = connections.filter((c) => /^\s*LISTEN\b/i.test(c.query));
      expect(listening, JSON.stringify(connections)).toHaveLength(1);
      expect(connections.length, JSON.stringify(connections)).toBeLessThanOrEqual(POOL_MAX + 1);

      // Still serving after the measurement, and stops cleanly.
      expect((await call('rest', baseUrl)).status).toBe(200);
      expect(exitedWhile, service!.output()).toBeUndefined();
    } finally {
      running = false;
      await Promise.all([...workers, prober]);
    }

    // With the load over, every pooled connection is back in the pool and nobody waits for one: none leaked
    // inside the pool either (a request that never released its connection).
    const metrics = await (await fetch(`${baseUrl}/metrics`)).text();
    const pool = (state: string) => Number(new RegExp(`db_pool_connections\\{state="${state}"\\} (\\d+)`).exec(metrics)?.[1]);
    expect(pool('waiting'), metrics).toBe(0);
    expect(pool('idle'), metrics).toBe(pool('total'));
    expect(pool('total'), metrics).toBeLessThanOrEqual(POOL_MAX);

    const code = await service!.stop();
    expect(code, service!.output()).toBe(0);
    // LOG_LEVEL=warn: nothing but warnings and errors; none is expected to be an uncaught failure.
    expect(service!.output()).not.toMatch(/Unhandled|uncaught|TypeError|ReferenceError/i);
  });
});
