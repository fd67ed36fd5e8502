// The app as `npm start` sets it up on a first embedded start: the demo tenant loaded and a demo key issued by
// the real start-up code (ensureDemoData), and GraphiQL opening with that key.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureDemoData } from '../../src/demo/demo-data.ts';
import type { AppOptions } from '../../src/app.ts';
import { startApp, type RunningApp } from './app-server.ts';
import { newCipher } from './fixtures.ts';
import { createTestDatabase } from './test-database.ts';

export interface DemoApp {
  app: RunningApp;
  /** The demo key, which GraphiQL opens with. */
  key: string;
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
  const app = await startApp(db.orm, cipher, undefined, { options: { demoApiKey: demoKey.key } });
  const others: RunningApp[] = [];
  return {
    app,
    key: demoKey.key,
    async startAnother(otherOptions) {
      others.push(await startApp(db.orm, cipher, undefined, { options: otherOptions }));
      return others.at(-1)!;
    },
    async close() {
      await Promise.all([app, ...others].map((running) => running.close()));
      await db.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
