// npm run bench:triggers -- [--rows 100000] [--imported 2000] [--rounds 3]
// What the change-notification triggers (live updates) cost the writes they watch: the same writes with the
// triggers enabled and disabled (ALTER TABLE … DISABLE TRIGGER USER: the foreign-key triggers stay), alternated,
// in a database of its own created from DATABASE_URL (any database of the server; it is not written to) and
// dropped afterwards. A LISTEN connection drains the notifications, as a running gateway would.
// Set-based writes (one statement for all rows, as a COPY-based import would do) and the importer itself.
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { createDatabaseIfMissing, migrate } from '../src/db/database.ts';
import { entities } from '../src/modules/entities.ts';
import { createOrmConfig, type AppOrm } from '../src/db/orm-config.ts';
import { importDocument } from '../src/import/importer.ts';
import { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';

const { values } = parseArgs({ options: {
  rows: { type: 'string', default: '100000' }, imported: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '3' },
} });
const [ROWS, IMPORTED, ROUNDS] = [Number(values.rows), Number(values.imported), Number(values.rounds)];
const maintenanceUrl = process.env.DATABASE_URL;
if (!maintenanceUrl) throw new Error('set DATABASE_URL to any database of the PostgreSQL server to measure on');

const TABLES = ['deployment', 'revision', 'secret', 'secret_reference', 'deployment_tag_value'];
const TENANT = randomUUID();
const name = `bench_notify_triggers_${randomBytes(4).toString('hex')}`;
await createDatabaseIfMissing(maintenanceUrl, name);
const url = new URL(maintenanceUrl);
url.pathname = `/${name}`;
const orm = (await MikroORM.init(createOrmConfig({ entities, clientUrl: url.toString(), timeouts: { connectTimeoutMs: 3000, statementTimeoutMs: 0 } }))) as unknown as AppOrm;
await migrate(orm);
const sql = new pg.Client({ connectionString: url.toString() });
const listener = new pg.Client({ connectionString: url.toString() });
await sql.connect();
await listener.connect();
let notifications = 0;
listener.on('notification', () => { notifications++; });
await listener.query('LISTEN deployment_changed');
const cipher = new SecretCipher(randomBytes(32));

async function timed(what: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await what();
  return performance.now() - started;
}

async function setTriggers(enabled: boolean) {
  for (const table of TABLES) await sql.query(`alter table ${table} ${enabled ? 'enable' : 'disable'} trigger user`);
}

async function reset() {
  await sql.query(`truncate deployment, revision, secret, secret_reference, deployment_tag_value, tag_value, tag_key, tenant cascade`);
  await sql.query(`insert into tenant values ($1, 'bench', now(), now())`, [TENANT]);
}

/** One statement per write, every row at once. */
async function setBased(): Promise<Record<string, number>> {
  return {
    'insert deployments': await timed(() => sql.query(`insert into deployment (id, tenant_id, name, status, source, deployment_type, source_config, created_at, updated_at)
      select gen_random_uuid(), $1, 'd' || g, 'READY', 'github', 'dev', '{"repo_url": "https://example.com/r"}', now(), now() from generate_series(1, $2) as g`, [TENANT, ROWS])),
    'update deployments': await timed(() => sql.query(`update deployment set status = 'UNUSED', updated_at = now()`)),
    'update deployments, no change': await timed(() => sql.query(`update deployment set status = status`)),
    'insert revisions': await timed(() => sql.query(`insert into revision (id, tenant_id, deployment_id, status, source, created_at, updated_at)
      select gen_random_uuid(), tenant_id, id, 'DEPLOYED', 'github', now(), now() from deployment`)),
    'delete revisions': await timed(() => sql.query('delete from revision')),
  };
}

function importedDocument(status: string) {
  return JSON.stringify({
    tenants: [{ id: TENANT, name: 'bench' }],
    tags: [{ tenant_id: TENANT, key: 'env', values: [{ id: '00000000-0000-4000-8000-0000000000e1', value: 'prod' }] }],
    deployments: Array.from({ length: IMPORTED }, (_, i) => {
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      return {
        id, tenant_id: TENANT, name: `d${i}`, status, source: 'internal_source', source_config: { deployment_type: 'dev' },
        created_at: '2026-02-01T00:00:00Z', updated_at: '2026-02-01T00:00:00Z', latest_revision_id: null, active_revision_id: null,
        tag_value_ids: ['00000000-0000-4000-8000-0000000000e1'], secrets: [{ name: 'A', value: 'x' }, { name: 'B', value: 'y' }],
        revisions: [{ id: `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`, status: 'DEPLOYED', created_at: '2026-02-01T00:01:00Z' }],
      };
    }),
  });
}

async function throughImporter(): Promise<Record<string, number>> {
  return {
    'import (create)': await timed(() => importDocument(orm.em.fork(), importedDocument('READY'), cipher)),
    'import (status change)': await timed(() => importDocument(orm.em.fork(), importedDocument('UNUSED'), cipher)),
  };
}

const results = new Map<string, { on: number[]; off: number[]; rows: number }>();
function record(measured: Record<string, number>, enabled: boolean, rows: number) {
  for (const [what, ms] of Object.entries(measured)) {
    const entry = results.get(what) ?? { on: [], off: [], rows };
    (enabled ? entry.on : entry.off).push(ms);
    results.set(what, entry);
  }
}

try {
  for (let round = 0; round < ROUNDS; round++) {
    // Alternated, and the order swapped every round: the machine's noise falls on both sides.
    for (const enabled of round % 2 === 0 ? [true, false] : [false, true]) {
      await setTriggers(enabled);
      await reset();
      record(await setBased(), enabled, ROWS);
      await reset();
      record(await throughImporter(), enabled, IMPORTED);
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`PostgreSQL ${(await sql.query('show server_version')).rows[0].server_version}; medians of ${ROUNDS} alternated rounds; ${notifications} notifications heard in all`);
  console.log('write'.padEnd(32), 'rows'.padStart(7), 'off ms'.padStart(9), 'on ms'.padStart(9), 'cost per 1,000 rows'.padStart(21));
  for (const [what, { on, off, rows }] of results) {
    const [offMs, onMs] = [median(off), median(on)];
    console.log(what.padEnd(32), String(rows).padStart(7), offMs.toFixed(0).padStart(9), onMs.toFixed(0).padStart(9),
      `${(((onMs - offMs) / rows) * 1000).toFixed(1)} ms (${(((onMs - offMs) / offMs) * 100).toFixed(0)}%)`.padStart(21));
  }
} finally {
  await listener.end();
  await sql.end();
  await orm.close();
  const admin = new pg.Client({ connectionString: maintenanceUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${admin.escapeIdentifier(name)} with (force)`);
  await admin.end();
}
