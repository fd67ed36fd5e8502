// Where the write scenarios write: a tenant of their own beside the dataset's, so that the big tenant the reads
// measure keeps exactly the rows `npm run bench:data` loaded. Before the writes it is emptied (of a run that
// stopped half-way) and given a key that may write and the PATCH scenarios' pool; after them it is emptied again
// and the tables it wrote to are vacuumed, so that the next run's reads find no dead rows of ours either.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../src/config.ts';
import type { Database } from '../src/db/database.ts';
import { scopeToTenant } from '../src/modules/common/tenant-scope.ts';
import { createDeployment } from '../src/modules/deployments/writes/deployment-writer.ts';
import { validateCreateRequest } from '../src/modules/deployments/writes/validate-write-request.ts';
import type { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import { openSecretsKeys } from '../src/modules/secrets/secrets-key.ts';
import { issueApiKey } from '../src/modules/tenancy/api-key.service.ts';
import { BENCH_TENANTS, tenantId } from './dataset.ts';
import type { BenchKeys } from './harness.ts';
import type { Scenario } from './scenarios.ts';
import { createBody, PATCH_POOL_SIZE } from './write-scenarios.ts';

/** The tenant after the dataset's last (bench/dataset.ts numbers them 0 to BENCH_TENANTS - 1). */
export const WRITES_TENANT = tenantId(BENCH_TENANTS);

/** The tables a write scenario adds rows to, children first (no cascade in the schema). */
const WRITTEN_TABLES = ['revision', 'secret', 'secret_reference', 'deployment'] as const;

export interface WriteTenant {
  /** A key of the write tenant that may write (values masked, as the read scenarios' usual key). */
  key: string;
  /** The deployments the PATCH scenarios go round, created as the CLI creates one. */
  pool: string[];
}

/** `em`: any EntityManager of the database (it is forked and scoped here). */
export async function prepareWriteTenant(em: EntityManager, cipher: SecretCipher): Promise<WriteTenant> {
  const connection = em.getConnection();
  await connection.execute(`insert into tenant (id, name, created_at, updated_at) values (?, 'bench-writes', now(), now()) on conflict (id) do nothing`, [WRITES_TENANT]);
  await emptyWriteTenant(em);
  const { key } = await issueApiKey(em.fork(), { tenantIds: [WRITES_TENANT], name: 'bench-writes', mayReadSecrets: false, mayWrite: true });
  const scope = { em: scopeToTenant(em, WRITES_TENANT), tenantId: WRITES_TENANT, cipher };
  const pool: string[] = [];
  for (let n = 0; n < PATCH_POOL_SIZE; n++) {
    const request = validateCreateRequest(createBody(`bench-w-pool-${n}`));
    if (!request.ok) throw new Error(`the CLI's create body is refused: ${JSON.stringify(request.errors)}`);
    pool.push((await createDeployment(scope, request.value)).row.id);
  }
  return { key, pool };
}

/**
 * What the write scenarios among `scenarios` need, if there are any (npm run bench and bench:compare): the write
 * tenant prepared, its key given to `keys` and its deployments to `pool` (the array writeScenarios was given).
 */
export async function prepareWritesFor(scenarios: readonly Scenario[], database: Database, config: Config, keys: BenchKeys, pool: string[]): Promise<void> {
  if (!scenarios.some((s) => s.writes)) return;
  const writeTenant = await prepareWriteTenant(database.orm.em, await openSecretsKeys(config, database.orm.em.getConnection()));
  pool.push(...writeTenant.pool);
  keys.writer = writeTenant.key;
}

/** After the write scenarios, once no write is in flight (if prepareWritesFor filled `pool`): the tenant emptied and vacuumed. */
export async function finishWrites(em: EntityManager, pool: readonly string[]): Promise<void> {
  if (pool.length) console.log(`Removed the ${await emptyWriteTenant(em, { vacuum: true })} deployments of the write tenant; vacuumed`);
}

/**
 * Removes every row the write scenarios made, and says how many deployments that was; with `vacuum`, then
 * vacuums the tables they wrote to.
 */
export const emptyWriteTenant = (em: EntityManager, { vacuum = false } = {}): Promise<number> => emptyTenant(em, WRITES_TENANT, { vacuum });

/**
 * The same for any tenant of the benchmark's own (bench/lifecycle.ts has one too): its deployments and what
 * belongs to them (a revision's lease and log lines go with it).
 */
export async function emptyTenant(em: EntityManager, tenant: string, { vacuum = false } = {}): Promise<number> {
  const connection = em.getConnection();
  const [row] = await connection.execute<{ count: string }[]>('select count(*) from deployment where tenant_id = ?', [tenant]);
  // Not one transaction: a removal stopped half-way leaves rows the next one removes.
  for (const table of WRITTEN_TABLES) await connection.execute(`delete from ${table} where tenant_id = ?`, [tenant], 'run');
  if (vacuum) await connection.execute(`vacuum ${[...WRITTEN_TABLES, 'revision_lease', 'revision_log_line'].join(', ')}`);
  return Number(row?.count ?? 0);
}
