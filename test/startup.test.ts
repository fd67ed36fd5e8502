// The README's start command, end to end: a real process, a real embedded PostgreSQL in a directory that
// survives restarts, migrations, demo data and a printed key that works (and is printed again later).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createDatabaseIfMissing } from '../src/db/database.ts';
import { urlForDatabase } from './support/test-database.ts';
import { EXAMPLE_QUERY } from '../src/graphql/graphiql.ts';
import { graphqlAt, runNode, startService } from './support/service-process.ts';

const dirs: string[] = [];
const databases: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dmg-start-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true }));
  const admin = new pg.Client({ connectionString: inject('postgresMaintenanceUrl') });
  await admin.connect();
  for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(name)} WITH (FORCE)`);
  await admin.end();
});

async function tablesOf(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(`select table_name from information_schema.tables where table_schema = 'public' order by 1`);
    return rows.map((r) => r.table_name as string);
  } finally {
    await client.end();
  }
}

async function freshDatabaseUrl(): Promise<string> {
  const maintenance = inject('postgresMaintenanceUrl');
  const name = `start_${Math.random().toString(36).slice(2, 10)}`;
  await createDatabaseIfMissing(maintenance, name);
  databases.push(name);
  return urlForDatabase(maintenance, name);
}

describe('npm start', () => {
  it('starts on an embedded PostgreSQL with demo data and a working key, and keeps both across restarts', async () => {
    const dataDir = tempDir();
    const first = await startService({ DATA_DIR: dataDir });
    const key = /Demo API key \([^)]*\): (dmk_\S+)/.exec(first.output())?.[1];
    expect(key, first.output()).toBeDefined();
    expect(first.output()).toContain(`embedded PostgreSQL in ${dataDir}`);
    expect(await graphqlAt(first.url, key!, '{ tenant { name } }')).toEqual({ data: { tenant: { name: 'Demo Workspace' } } });

    // GraphiQL opens with the demo key filled in and an example query that shows data at once.
    const graphiql = await (await fetch(first.url, { headers: { accept: 'text/html' } })).text();
    expect(graphiql).toContain(key!);
    expect(graphiql).toContain('NewestDeployments');
    const example = await graphqlAt(first.url, key!, EXAMPLE_QUERY);
    expect(example.errors).toBeUndefined();
    expect(example.data.deployments.resources.length).toBeGreaterThan(0);
    expect(await first.stop()).toBe(0);

    // Secrets key and demo key are kept beside the data, readable by their owner only.
    for (const file of ['secrets.key', 'demo-api-key']) {
      expect(fs.statSync(path.join(dataDir, file)).mode & 0o777).toBe(0o600);
    }

    const second = await startService({ DATA_DIR: dataDir });
    expect(second.output()).toContain(key);
    expect(await graphqlAt(second.url, key!, '{ tenant { name } }')).toEqual({ data: { tenant: { name: 'Demo Workspace' } } });
    expect(await second.stop()).toBe(0);
  });

  it('refuses a second service on the same data, and takes over a PostgreSQL orphaned by a killed one', async () => {
    const dataDir = tempDir();
    const first = await startService({ DATA_DIR: dataDir });
    const key = /Demo API key \([^)]*\): (dmk_\S+)/.exec(first.output())![1]!;
    await expect(startService({ DATA_DIR: dataDir })).rejects.toThrow(/belongs to another running process .*is the service already running\?/);

    first.kill('SIGKILL'); // leaves its PostgreSQL running, owned by nobody
    await first.exited;
    const next = await startService({ DATA_DIR: dataDir });
    expect(await graphqlAt(next.url, key, '{ tenant { name } }')).toEqual({ data: { tenant: { name: 'Demo Workspace' } } });
    expect(await next.stop()).toBe(0);
  });

  it('stops with one line naming HOST when it cannot listen there', async () => {
    const env = { DATABASE_URL: await freshDatabaseUrl(), SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'), HOST: 'no-such-host.invalid' };
    await expect(startService(env)).rejects.toThrow(/exited with 1 before it was ready:\nInvalid configuration: HOST does not allow listening on no-such-host.invalid:0 \(ENOTFOUND\)\n$/);
  });

  it('uses DATABASE_URL when set: migrates it, starts no embedded server and loads no demo data', async () => {
    const dataDir = tempDir();
    const url = await freshDatabaseUrl();
    const service = await startService({ DATABASE_URL: url, SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'), DATA_DIR: dataDir });
    expect(service.output()).toContain('(database: DATABASE_URL)');
    expect(service.output()).not.toContain('Demo API key');
    const graphiql = await (await fetch(service.url, { headers: { accept: 'text/html' } })).text();
    expect(graphiql).toContain('NewestDeployments');
    expect(graphiql).not.toMatch(/dmk_[A-Za-z0-9_-]{20,}/);
    expect(await service.stop()).toBe(0);
    expect(fs.readdirSync(dataDir)).toEqual([]);
    expect(await tablesOf(url)).toContain('deployment');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    expect((await client.query('select count(*)::int as n from tenant')).rows[0].n).toBe(0);
    await client.end();
  });

  it('leaves migrations to `npm run db:migrate` when MIGRATE_ON_START=false', async () => {
    const url = await freshDatabaseUrl();
    const env = { DATABASE_URL: url, SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'), MIGRATE_ON_START: 'false' };
    const service = await startService(env);
    expect(await service.stop()).toBe(0);
    expect(await tablesOf(url)).toEqual([]);

    const migrate = runNode('src/cli/migrate.ts', ['up'], env);
    let out = '';
    migrate.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
    const code = await new Promise((resolve) => migrate.once('exit', resolve));
    expect(code).toBe(0);
    expect(out).toMatch(/^Applied Migration\d+_initial/);
    expect(await tablesOf(url)).toContain('deployment');
  });
});
