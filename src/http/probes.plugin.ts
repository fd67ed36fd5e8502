// Operational endpoints, answered before authentication and the REST routes: /health (liveness: the process
// serves requests), /ready (readiness: the database answers, every migration is applied, this process has a
// key for every key the stored secrets were written under, not shutting down) and /metrics (Prometheus text).
import type { Plugin } from 'graphql-yoga';
import type { AppOrm } from '../db/orm-config.ts';
import type { Metrics } from '../observability/metrics.ts';
import { scopeOfServerContext } from '../observability/request-scope.ts';
import { RETRY_AFTER_SECONDS } from '../db/connection-loss.ts';
import type { InFlightRequests } from './in-flight-requests.ts';
import type { SecretCipher } from '../modules/secrets/secret-cipher.ts';
import { keysCannotRead } from '../modules/secrets/secrets-key.ts';
import type { ReadReplicas } from '../db/read-replicas.ts';

export interface ProbeOptions {
  orm: AppOrm;
  metrics: Metrics;
  inFlight: InFlightRequests;
  cipher: SecretCipher;
  /** Read replicas: shown by /ready, which they never make unready (reads fall back to the primary). */
  replicas?: ReadReplicas;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers } });

type Check = 'ok' | string;
interface Checks { database: Check; migrations: Check; secretsKey: Check }
const READY_CACHE_MS = 1000;

export function useProbes({ orm, metrics, inFlight, cipher, replicas }: ProbeOptions): Plugin {
  // Applied migrations do not become pending again while the process runs; once seen complete, not re-read.
  let migrationsApplied = false;

  async function checkMigrations(): Promise<Check> {
    if (migrationsApplied) return 'ok';
    try {
      const pending = await orm.migrator.getPending();
      migrationsApplied = pending.length === 0;
      return migrationsApplied ? 'ok' : `${pending.length} pending`;
    } catch {
      return 'unknown';
    }
  }

  // Start-up refuses keys that cannot read the stored secrets; this catches secrets written later, by another
  // process, under a key this one lacks (a rotation begun before every instance had the new key).
  async function checkSecretsKey(): Promise<Check> {
    try {
      // No counts (a probe needs no key, and counting every row each second while unhealthy would be wasteful).
      const problem = await keysCannotRead(cipher, orm.em.getConnection(), undefined, { counts: false });
      return problem ? `${problem.description}, which this process's keys do not read (see npm run secrets -- check)` : 'ok';
    } catch {
      return 'unknown';
    }
  }

  async function checkDatabase(): Promise<Checks> {
    try {
      await orm.em.getConnection().execute('select 1');
    } catch {
      return { database: 'unreachable', migrations: 'unknown', secretsKey: 'unknown' };
    }
    const [migrations, secretsKey] = await Promise.all([checkMigrations(), checkSecretsKey()]);
    return { database: 'ok', migrations, secretsKey };
  }

  // Probes need no key, so a flood of them must not take the pool from real requests: one check at a time,
  // and its answer serves every probe for a second.
  let lastCheck: { at: number; checks: Promise<Checks> } | undefined;
  function latestChecks() {
    if (!lastCheck || Date.now() - lastCheck.at > READY_CACHE_MS) lastCheck = { at: Date.now(), checks: checkDatabase() };
    return lastCheck.checks;
  }

  async function ready(): Promise<Response> {
    if (inFlight.draining) return json(503, { status: 'unavailable', checks: { shutdown: 'in progress' } });
    const checks = await latestChecks();
    const ok = checks.database === 'ok' && checks.migrations === 'ok' && checks.secretsKey === 'ok';
    const shown = replicas ? { checks, replicas: replicas.statuses } : { checks };
    return ok
      ? json(200, { status: 'ready', ...shown })
      : json(503, { status: 'unavailable', ...shown }, { 'retry-after': String(RETRY_AFTER_SECONDS) });
  }

  async function metricsText(): Promise<Response> {
    let text: string;
    try {
      text = await metrics.exposition();
    } catch (error) {
      // With several workers the text is gathered through the cluster primary; a scrape may fail, never hang.
      return json(503, { detail: `Metrics unavailable: ${(error as Error).message}` }, { 'retry-after': String(RETRY_AFTER_SECONDS) });
    }
    return new Response(text, { headers: { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' } });
  }

  const endpoints: Record<string, () => Promise<Response> | Response> = {
    '/health': () => json(200, { status: 'ok' }),
    '/ready': ready,
    '/metrics': metricsText,
  };

  return {
    async onRequest({ url, request, endResponse, serverContext }) {
      const endpoint = endpoints[url.pathname];
      if (!endpoint) return;
      scopeOfServerContext(serverContext).route = url.pathname;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(json(405, { detail: 'Method Not Allowed' }, { allow: 'GET, HEAD' }));
        return;
      }
      const response = await endpoint();
      endResponse(request.method === 'HEAD' ? new Response(null, { status: response.status, headers: response.headers }) : response);
    },
  };
}
