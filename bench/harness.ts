// What the benchmark and the soak test share: the service's production environment, a key for the big
// tenant (after checking the dataset is there), the service's memory, and a description of the machine.
import fs from 'node:fs';
import os from 'node:os';
import type { Database } from '../src/db/database.ts';
import { issueApiKey } from '../src/modules/tenancy/api-key.service.ts';
import { ACROSS_TENANTS } from '../src/modules/common/tenant-scope.ts';
import { DeploymentSchema } from '../src/modules/deployments/deployment.entity.ts';
import { tenantId } from './dataset.ts';

/** The origin of the frontend app whose requests the benchmark sends as a browser would (bench/scenarios.ts). */
export const BENCH_APP_ORIGIN = 'https://app.example.com';

/**
 * The service as production runs it: request logs at info level, a rate limiter that is consulted on every
 * request (its cost is measured) with a budget one key cannot exhaust under load, and CORS for a frontend app.
 */
export const PRODUCTION_SERVICE_ENV = {
  NODE_ENV: 'production', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '1000000',
  CORS_ORIGINS: BENCH_APP_ORIGIN,
};

/**
 * The benchmark's keys for the big tenant: one without the secrets scope (values masked), one with it; and,
 * when the write scenarios run, the write tenant's key that may write (values masked).
 */
export interface BenchKeys {
  masked: string;
  secrets: string;
  writer?: string;
  /** The changed page's tenant's key that may write (bench/conditional-scenarios.ts). */
  pageWriter?: string;
}

/** The key a scenario is sent with. */
export function keyFor(scenario: { readsSecrets?: boolean; writes?: boolean; changesPage?: boolean }, keys: BenchKeys): string {
  if (scenario.changesPage) {
    if (!keys.pageWriter) throw new Error('the changed page needs its tenant\'s key (issueChangedPageKey)');
    return keys.pageWriter;
  }
  if (!scenario.writes) return scenario.readsSecrets ? keys.secrets : keys.masked;
  if (!keys.writer) throw new Error('a write scenario needs the write tenant\'s key (prepareWriteTenant)');
  return keys.writer;
}

export async function issueBenchKeys(database: Database, name: string): Promise<BenchKeys> {
  return { masked: await issueBenchKey(database, name), secrets: await issueBenchKey(database, `${name}-secrets`, true) };
}

/** Checks that `npm run bench:data` has run, then issues a key for the big tenant (by default without the secrets scope). */
export async function issueBenchKey(database: Database, name: string, mayReadSecrets = false): Promise<string> {
  const em = database.orm.em.fork();
  const deployments = await em.count(DeploymentSchema, { tenant: tenantId(0) }, ACROSS_TENANTS);
  if (deployments < 1000) throw new Error(`the big tenant has ${deployments} deployments: run \`npm run bench:data\` first`);
  const { key } = await issueApiKey(em, { tenantIds: [tenantId(0)], name, mayReadSecrets });
  return key;
}

/** Resident memory of a process, in bytes (NaN once it is gone). */
export function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;
  } catch {
    return NaN;
  }
}

/** CPU seconds a process (user and system) and its children running the service (cluster workers) have used so far. */
export function serviceCpuSeconds(pid: number): number {
  const ticks = (id: number) => {
    try {
      // Fields 14 and 15 (utime, stime), counted after the command name's closing parenthesis.
      const fields = fs.readFileSync(`/proc/${id}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return Number(fields[11]) + Number(fields[12]);
    } catch {
      return 0;
    }
  };
  let children: number[] = [];
  try {
    children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch { /* gone */ }
  const workers = children.filter((id) => {
    try {
      return fs.readFileSync(`/proc/${id}/cmdline`, 'utf8').includes('src/main.ts');
    } catch {
      return false;
    }
  });
  return [pid, ...workers].reduce((sum, id) => sum + ticks(id), 0) / CLOCK_TICKS_PER_SECOND;
}

/** USER_HZ: 100 on Linux for every architecture the service runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

export const machineDescription = () =>
  `${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
