// The benchmark's lifecycle group (bench/lifecycle.ts) at a small size, against a real service with its LISTEN
// connection: every report's event reaches every subscription it should (the measurement waits for each one),
// the data planes' race claims each revision of the queue exactly once (it stops otherwise), and the group leaves
// no row behind in its tenant and touches no other tenant's. A drift would only show in `npm run bench`, minutes in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_CASES, LIFECYCLE_TENANT, measureLifecycle, type LifecycleResult } from '../bench/lifecycle.ts';
import type { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import { importFixture, newCipher } from './support/fixtures.ts';
import { startLiveService, type LiveService } from './support/live-data.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
let cipher: SecretCipher;
let live: LiveService;
beforeAll(async () => {
  db = await createTestDatabase();
  cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  live = await startLiveService(db, cipher);
});
afterAll(async () => {
  await live?.close();
  await db?.drop();
});

const countsByTenant = () => db.query<{ tenant_id: string; table: string; n: number }>(
  `select tenant_id, 'deployment' as table, count(*)::int as n from deployment group by 1
   union all select tenant_id, 'revision', count(*)::int from revision group by 1
   union all select tenant_id, 'revision_lease', count(*)::int from revision_lease group by 1 order by 1, 2`);

describe('the lifecycle group of npm run bench (bench/lifecycle.ts)', () => {
  it('measures every event and every claim it should, then empties its tenant and nothing else', async () => {
    const before = await countsByTenant();
    // 12 subscriptions over two keys of 10 (SUBSCRIPTIONS_PER_KEY's default).
    // The service runs in this process: its CPU is this process's.
    const serviceCpuSeconds = () => (process.cpuUsage().user + process.cpuUsage().system) / 1e6;
    const settings = { subscriptions: 12, queue: 40, rounds: 1, fanOutRevisions: 2, subscriptionsPerKey: 10, leaseSeconds: 60, serviceCpuSeconds };
    const result: LifecycleResult = await measureLifecycle(live.app.url, db.orm.em, cipher, settings);

    const [spread, fanOut] = result.events;
    // One subscription per deployment: 12 revisions × 4 reports, each event to one subscription.
    expect(spread).toMatchObject({ subscriptions: 12, reports: 48, events: 48 });
    // All 12 on one deployment: 2 revisions × 4 reports, each event to all 12.
    expect(fanOut).toMatchObject({ subscriptions: 12, reports: 8, events: 96 });
    for (const measured of [spread!, fanOut!]) {
      const values = [measured.afterAnswerMs, measured.afterAtMs, measured.reportMs].flatMap((s) => [s.p50, s.p99, s.max]);
      for (const value of [...values, measured.cpuMsPerReport]) expect(Number.isFinite(value)).toBe(true);
    }
    // raceForQueue throws when a revision is claimed twice or never: each case claimed the 40 exactly once.
    expect(result.claims.map(({ planes, limit, queue, rounds }) => ({ planes, limit, queue, rounds }))).toEqual(CLAIM_CASES.map((c) => ({ ...c, queue: 40, rounds: 1 })));
    for (const c of result.claims) {
      expect(c.claimsPerSecond).toBeGreaterThan(0);
      expect(Number.isFinite(c.cpuMsPerClaim)).toBe(true);
    }

    const after = await countsByTenant();
    expect(after.filter((row) => row.tenant_id === LIFECYCLE_TENANT)).toEqual([]);
    expect(after).toEqual(before);
  });
});
