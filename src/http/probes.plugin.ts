// Operational endpoints, answered before authentication and the REST routes: /health (liveness: the process
// serves requests), /ready (readiness: the database answers, every migration is applied, not shutting down)
// and /metrics (Prometheus text format).
import type { Plugin } from 'graphql-yoga';
import type { AppOrm } from '../db/orm-config.ts';
import type { Metrics } from '../observability/metrics.ts';
import { currentRequestScope } from '../observability/request-scope.ts';
import { RETRY_AFTER_SECONDS } from '../db/connection-loss.ts';
import type { InFlightRequests } from './in-flight-requests.ts';

export interface ProbeOptions {
  orm: AppOrm;
  metrics: Metrics;
  inFlight: InFlightRequests;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers } });

type Check = 'ok' | string;
const READY_CACHE_MS = 1000;

export function useProbes({ orm, metrics, inFlight }: ProbeOptions): Plugin {
  // Applied migrations do not become pending again while the process runs; once seen complete, not re-read.
  let migrationsApplied = false;

  async function checkDatabase(): Promise<{ database: Check; migrations: Check }> {
    try {
      await orm.em.getConnection().execute('select 1');
    } catch {
      return { database: 'unreachable', migrations: 'unknown' };
    }
    if (migrationsApplied) return { database: 'ok', migrations: 'ok' };
    try {
      const pending = await orm.migrator.getPending();
      migrationsApplied = pending.length === 0;
      return { database: 'ok', migrations: migrationsApplied ? 'ok' : `${pending.length} pending` };
    } catch {
      return { database: 'ok', migrations: 'unknown' };
    }
  }

  // Probes need no key, so a flood of them must not take the pool from real requests: one check at a time,
  // and its answer serves every probe for a second.
  let lastCheck: { at: number; checks: Promise<{ database: Check; migrations: Check }> } | undefined;
  function latestChecks() {
    if (!lastCheck || Date.now() - lastCheck.at > READY_CACHE_MS) lastCheck = { at: Date.now(), checks: checkDatabase() };
    return lastCheck.checks;
  }

  async function ready(): Promise<Response> {
    if (inFlight.draining) return json(503, { status: 'unavailable', checks: { shutdown: 'in progress' } });
    const checks = await latestChecks();
    const ok = checks.database === 'ok' && checks.migrations === 'ok';
    return ok
      ? json(200, { status: 'ready', checks })
      : json(503, { status: 'unavailable', checks }, { 'retry-after': String(RETRY_AFTER_SECONDS) });
  }

  const endpoints: Record<string, () => Promise<Response> | Response> = {
    '/health': () => json(200, { status: 'ok' }),
    '/ready': ready,
    '/metrics': async () => new Response(await metrics.registry.metrics(), { headers: { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' } }),
  };

  return {
    async onRequest({ url, request, endResponse }) {
      const endpoint = endpoints[url.pathname];
      if (!endpoint) return;
      const scope = currentRequestScope();
      if (scope) scope.route = url.pathname;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(json(405, { detail: 'Method Not Allowed' }, { allow: 'GET, HEAD' }));
        return;
      }
      const response = await endpoint();
      endResponse(request.method === 'HEAD' ? new Response(null, { status: response.status, headers: response.headers }) : response);
    },
  };
}
