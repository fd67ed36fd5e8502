// The benchmark's upload group (bench/upload.ts) at a small size, against a real service whose built-in store
// keeps objects in a DATA_DIR of the test's: every round's copies and upload are measured (an upload the service
// refuses stops the group), the memory is sampled, and the group leaves nothing behind: no object, no archive, no
// upload record or row of its tenant, and no other tenant's row touched. A drift would only show in
// `npm run bench`, minutes in.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureUpload, formatUploadTable, UPLOAD_TENANT } from '../bench/upload.ts';
import { openObjectStore } from '../src/modules/storage/open-object-store.ts';
import { importFixture, newCipher } from './support/fixtures.ts';
import { startApp, type RunningApp } from './support/app-server.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
let app: RunningApp;
let dataDir: string;
beforeAll(async () => {
  db = await createTestDatabase();
  const cipher = newCipher();
  await importFixture(db.orm.em.fork(), cipher);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-upload-'));
  let url = '';
  const objectStore = openObjectStore({ objectStorage: { kind: 'embedded' }, dataDir }, cipher.keyRing.values(), () => url);
  app = await startApp(db.orm, cipher, undefined, { objectStore });
  url = app.url;
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const countsByTenant = () => db.query<{ tenant_id: string; table: string; n: number }>(
  `select tenant_id, 'deployment' as table, count(*)::int as n from deployment group by 1
   union all select tenant_id, 'revision', count(*)::int from revision group by 1
   union all select tenant_id, 'source_upload', count(*)::int from source_upload group by 1 order by 1, 2`);

/** Every file under `dir`, relative to it. */
const filesUnder = (dir: string): string[] => (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
  .filter((entry) => entry.isFile()).map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));

describe('the upload group of npm run bench (bench/upload.ts)', () => {
  it('measures every round\'s copies and upload, then leaves no object, file or row behind', async () => {
    const before = await countsByTenant();
    // The service runs in this process: the memory and CPU sampled are its own.
    const result = await measureUpload(app.url, db.orm.em, { dataDir, servicePid: process.pid, megabytes: 4, rounds: 2, settleMs: 50 });

    expect(result.rounds).toHaveLength(2);
    for (const round of result.rounds) {
      for (const value of [round.copyFileMiBps, round.streamCopyMiBps, round.uploadMiBps, round.idleRssMiB, round.peakRssMiB, round.serviceCpuMsPerMiB]) {
        expect(Number.isFinite(value), JSON.stringify(round)).toBe(true);
      }
      expect(round.uploadMiBps).toBeGreaterThan(0);
      expect(round.peakRssMiB).toBeGreaterThan(0);
      expect(round.rssSamples).toBeGreaterThanOrEqual(1);
      // The read beside the upload ran while the memory settled (and during the upload, if it lasted long enough).
      expect(round.readIdleMs.count).toBeGreaterThan(0);
    }
    expect(result.ofCeiling).toBeGreaterThan(0);
    expect(formatUploadTable(result)).toContain('| median');

    // The uploads were stored, then removed with the archive and its copies; the tenant is empty.
    expect(filesUnder(dataDir)).toEqual([]);
    const after = await countsByTenant();
    expect(after.filter((row) => row.tenant_id === UPLOAD_TENANT)).toEqual([]);
    expect(after).toEqual(before);
  });
});
