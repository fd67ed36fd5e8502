// Starts one throw-away embedded PostgreSQL for the whole run, unless TEST_DATABASE_URL names a server to
// use instead. Test files get the server's maintenance URL and create their own databases on it.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresMaintenanceUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    project.provide('postgresMaintenanceUrl', external);
    return;
  }
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'dmg-test-pg-'));
  await fs.chmod(root, 0o711);
  const server = await startEmbeddedPostgres({ clusterDir: path.join(root, 'cluster'), port: 0, persistent: false });
  project.provide('postgresMaintenanceUrl', server.databaseUrl('postgres'));
  return async () => {
    await server.stop();
    await fs.rm(root, { recursive: true, force: true });
  };
}
