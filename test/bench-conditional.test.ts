// The benchmark's conditional requests (bench/conditional-scenarios.ts) at a small size, through the load the
// benchmark drives (autocannon): the revalidated page gets a 304 for every request, and the page read after each
// write gets a 200 with a new tag and that write's revision. Any other answer is a failure the load counts: a
// drift would only show in `npm run bench`, minutes in, and a 304 to a changed page would be a stale answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conditionalScenarios, CHANGED_PAGE, REVALIDATED_PAGE } from '../bench/conditional-scenarios.ts';
import { FULL_PAGE } from '../bench/scenarios.ts';
import { load } from '../bench/service-load.ts';
import { createBody } from '../bench/write-scenarios.ts';
import type { BenchKeys } from '../bench/harness.ts';
import { scopeToTenant } from '../src/modules/common/tenant-scope.ts';
import { createDeployment } from '../src/modules/deployments/writes/deployment-writer.ts';
import { validateCreateRequest } from '../src/modules/deployments/writes/validate-write-request.ts';
import { ACME, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
let app: RunningApp;
let keys: BenchKeys;
const [revalidated, changed] = conditionalScenarios(FULL_PAGE);

beforeAll(async () => {
  db = await createTestDatabase();
  const cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  // Deployments the CLI's PATCH may write (internal_docker), on the page as its newest.
  const scope = { em: scopeToTenant(db.orm.em, ACME), tenantId: ACME, cipher };
  for (let n = 0; n < 4; n++) {
    const request = validateCreateRequest(createBody(`bench-conditional-${n}`));
    if (!request.ok) throw new Error(JSON.stringify(request.errors));
    await createDeployment(scope, request.value);
  }
  keys = { masked: await issueKey(db.orm.em, [ACME]), secrets: await issueKey(db.orm.em, [ACME], true), pageWriter: await issueKey(db.orm.em, [ACME], false, true) };
  app = await startApp(db.orm, cipher);
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const revisions = () => db.query<{ n: number }>('select count(*)::int as n from revision where tenant_id = $1', [ACME]);

describe('the conditional requests of npm run bench (bench/conditional-scenarios.ts)', () => {
  it('revalidate the page: every answer is a 304', async () => {
    expect(revalidated!.name).toBe(REVALIDATED_PAGE);
    // The service runs in this process: the CPU and memory sampled are its own.
    const sample = await load(revalidated!, app.url, keys, 1, process.pid, 2, 'count');
    expect(sample.failed).toBe(0);
    expect(sample.requestsPerSecond).toBeGreaterThan(0);
  });

  it('read the page after each write: every read is a 200 with a new tag and the write\'s revision', async () => {
    expect(changed!.name).toBe(CHANGED_PAGE);
    const [before] = await revisions();
    const sample = await load(changed!, app.url, keys, 1, process.pid, 2, 'count');
    expect(sample.failed).toBe(0);
    expect(sample.requestsPerSecond).toBeGreaterThan(0);
    expect(sample.otherP50).toBeGreaterThan(0);
    // Each read had its write: a revision each.
    const [after] = await revisions();
    expect(after!.n - before!.n).toBeGreaterThanOrEqual(Math.floor(sample.requestsPerSecond));
  });
});
