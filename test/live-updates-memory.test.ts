// 200 subscription streams open at once, in a service process of their own: what they cost it in memory
// (measured after full garbage collections, stated in docs/performance.md#live-updates), and that a change
// still reaches every one of them.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/config.ts';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { subscribe, type EventStream } from './support/event-stream.ts';
import { deploymentRecord, importDeployments, newDeploymentId } from './support/live-data.ts';
import type { Measurement } from './support/live-stream-server.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

const STREAMS = 200;
const MB = 1024 * 1024;
/**
 * Measured on the development machine: 43 KB of heap per stream (the service's heap 44.4 -> 52.7 MB, after an
 * event was delivered to all), RSS 15-16 MB more for the 200 (three runs). The bounds leave a margin of 2.3x
 * for the heap and 4x for RSS (which moves with the allocator): a doubling of what a stream holds fails.
 */
const MAX_HEAP_PER_STREAM = 100 * 1024;
const MAX_RSS_GROWTH = 64 * MB;

let db: TestDatabase;
let server: ChildProcess;
let url: string;
const cipher = newCipher();

beforeAll(async () => {
  db = await createTestDatabase();
  await importFixture(db.orm.em.fork(), cipher);
  server = spawn(process.execPath, ['--expose-gc', 'test/support/live-stream-server.ts'], {
    cwd: PROJECT_ROOT, env: { ...process.env, DATABASE_URL: db.url }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [{ port }] = (await once(server, 'message')) as [{ port: number }];
  url = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  server?.disconnect();
  if (server && server.exitCode === null) await once(server, 'exit');
  await db?.drop();
});

async function measure(): Promise<Measurement> {
  server.send('measure');
  const [measurement] = (await once(server, 'message')) as [Measurement];
  return measurement;
}

async function openStreams(key: string, count: number): Promise<EventStream[]> {
  const query = 'subscription { deploymentUpdated { kind deploymentId deployment { uuid name status updatedAt } } }';
  const streams = await Promise.all(Array.from({ length: count }, () => subscribe(url, key, query)));
  expect(streams.map((stream) => stream.status)).toEqual(Array(count).fill(200));
  return streams;
}

describe(`${STREAMS} concurrent streams`, () => {
  it('stay within the stated memory bound, and each gets a change', async () => {
    const key = await issueKey(db.orm.em, [ACME]);
    // Warm-up: the code paths of a stream and of an event, compiled and cached before the baseline.
    const warm = await openStreams(key, 5);
    await importDeployments(db.orm.em, cipher, [deploymentRecord(newDeploymentId(), ACME, 'live-warm-up', 'READY')]);
    for (const stream of warm) await stream.nextResult(10_000);
    warm.forEach((stream) => stream.close());
    for (let tries = 0; (await measure()).openStreams > 0 && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 50));

    const before = await measure();
    const streams = await openStreams(key, STREAMS);
    const open = await measure();
    expect(open.openStreams).toBe(STREAMS);

    const id = newDeploymentId();
    await importDeployments(db.orm.em, cipher, [deploymentRecord(id, ACME, 'live-two-hundred', 'READY')]);
    for (const stream of streams) expect((await stream.nextResult(20_000)).data.deploymentUpdated.deploymentId).toBe(id);
    const delivered = await measure();

    const heapPerStream = (delivered.heapUsed - before.heapUsed) / STREAMS;
    const rssGrowth = delivered.rss - before.rss;
    console.log(`${STREAMS} streams: heap ${(before.heapUsed / MB).toFixed(1)} -> ${(open.heapUsed / MB).toFixed(1)} MB open -> ${(delivered.heapUsed / MB).toFixed(1)} MB after an event`
      + ` (${(heapPerStream / 1024).toFixed(1)} KB per stream); RSS ${(before.rss / MB).toFixed(1)} -> ${(open.rss / MB).toFixed(1)} -> ${(delivered.rss / MB).toFixed(1)} MB`);
    streams.forEach((stream) => stream.close());
    expect(heapPerStream).toBeLessThan(MAX_HEAP_PER_STREAM);
    expect(rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
  });
});
