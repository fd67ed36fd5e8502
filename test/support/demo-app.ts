// The app as `npm start` sets it up on a first embedded start: the demo tenant loaded and a demo key issued by
// the real start-up code (ensureDemoData), GraphiQL opening with that key, and live updates through one LISTEN
// connection shared with the key cache.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureDemoData } from '../../src/demo/demo-data.ts';
import type { AppOptions } from '../../src/app.ts';
import type { SecretCipher } from '../../src/modules/secrets/secret-cipher.ts';
import type { RunningApp } from './app-server.ts';
import { newCipher } from './fixtures.ts';
import { startLiveService, type LiveService } from './live-data.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

export interface DemoApp {
  app: RunningApp;
  /** The demo key, which GraphiQL opens with. */
  key: string;
  /** The database and the cipher, for writing changes as an import would. */
  db: TestDatabase;
  cipher: SecretCipher;
  /** Another app on the same database (closed with this one), with other options: no demo key, no GraphiQL. */
  startAnother(options: AppOptions): Promise<RunningApp>;
  close(): Promise<void>;
}

export async function startDemoApp(): Promise<DemoApp> {
  const db = await createTestDatabase();
  const cipher = newCipher();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dmg-demo-'));
  const demoKey = await ensureDemoData(db.orm, cipher, dataDir);
  if (!('key' in demoKey)) throw new Error('a fresh database has no revoked demo key');
  const services: LiveService[] = [await startLiveService(db, cipher, { options: { demoApiKey: demoKey.key } })];
  return {
    app: services[0]!.app,
    key: demoKey.key,
    db,
    cipher,
    async startAnother(otherOptions) {
      services.push(await startLiveService(db, cipher, { options: otherOptions }));
      return services.at(-1)!.app;
    },
    async close() {
      await Promise.all(services.map((service) => service.close()));
      await db.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
