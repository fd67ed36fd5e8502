// Prometheus metrics, in a registry of the app's own (several apps in one process, as in tests, never share
// counters). Labels come from a closed set (route templates, status codes, error codes) or are capped
// (operation names), so a client cannot grow the series without bound.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { ReplicaStatus } from '../db/read-replicas.ts';
import { HotPathCounter, HotPathHistogram } from './hot-path-metrics.ts';
import type pg from 'pg';

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const MAX_OPERATION_NAMES = 200;
const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;

export class Metrics {
  readonly registry = new Registry();
  /** The text /metrics answers with: this registry's, or with WORKERS > 1 every worker's (src/cluster). */
  exposition: () => Promise<string> = () => this.registry.metrics();
  private readonly operationNames = new Set<string>();
  private pool: pg.Pool | undefined;

  // The HotPath ones are updated by every request or operation (hot-path-metrics.ts says why they are not prom-client's).
  readonly httpRequests = new HotPathCounter({
    name: 'http_requests_total', help: 'HTTP requests answered, by route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const, registers: [this.registry],
  });
  readonly httpDuration = new HotPathHistogram({
    name: 'http_request_duration_seconds', help: 'Time from request to the last byte of the response, by route template.',
    labelNames: ['route', 'method'] as const, buckets: DURATION_BUCKETS, registers: [this.registry],
  });
  readonly graphqlOperations = new HotPathHistogram({
    name: 'graphql_operation_duration_seconds', help: 'GraphQL execution time, by operation name and type (REST routes run named operations).',
    labelNames: ['operation', 'type'] as const, buckets: DURATION_BUCKETS, registers: [this.registry],
  });
  readonly graphqlErrors = new HotPathCounter({
    name: 'graphql_errors_total', help: 'Errors in GraphQL results, by operation name and error code.',
    labelNames: ['operation', 'code'] as const, registers: [this.registry],
  });
  readonly runnerOperations = new HotPathCounter({
    name: 'graphql_prepared_operations_total',
    help: 'GraphQL operations the operation runner ran (either door), without Yoga\'s envelop (docs/architecture.md#the-path-of-a-request).',
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'rate_limited_requests_total', help: 'Requests refused with 429 because their API key (or address) spent its budget.',
    registers: [this.registry],
  });
  readonly unreadableSecrets = new Counter({
    name: 'secret_decryption_failures_total', help: 'Secret values that could not be decrypted and were served as null (see the error log for which).',
    registers: [this.registry],
  });
  // Two counters rather than one with a before/after label: their sum would mean nothing, their ratio does.
  readonly bytesBeforeCompression = new Counter({
    name: 'http_response_bytes_before_compression_total', help: 'Bytes of the response bodies that were sent compressed, before compression, by coding.',
    labelNames: ['encoding'] as const, registers: [this.registry],
  });
  readonly bytesAfterCompression = new Counter({
    name: 'http_response_bytes_after_compression_total', help: 'Bytes of the response bodies that were sent compressed, as sent, by coding.',
    labelNames: ['encoding'] as const, registers: [this.registry],
  });
  readonly changesMissed = new Counter({
    name: 'graphql_subscription_changes_missed_total',
    help: 'CHANGES_MISSED events sent to subscription streams, by reason (reconnect, overflow, load-failure).',
    labelNames: ['reason'] as const, registers: [this.registry],
  });
  private openSubscriptions: (() => number) | undefined;
  private decryptedValues: { hits: number; misses: number; size: { entries: number; bytes: number } } | undefined;
  private requestsInFlight: (() => number) | undefined;
  private replicas: (() => ReplicaStatus[]) | undefined;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const metrics = this;
    new Gauge({
      name: 'db_pool_connections', help: 'Connections of the database pool: total, idle, and requests waiting for one.',
      labelNames: ['state'] as const, registers: [this.registry],
      collect() {
        const pool = metrics.pool;
        if (!pool) return;
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
    new Gauge({
      name: 'db_replica_in_rotation', help: 'Whether each read replica (DATABASE_REPLICA_URLS) takes reads: 1, or 0 with its state.',
      labelNames: ['replica', 'state'] as const, registers: [this.registry],
      collect() {
        this.reset();
        for (const r of metrics.replicas?.() ?? []) this.set({ replica: r.name, state: r.state }, r.state === 'in rotation' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'db_replica_lag_seconds', help: 'How far each read replica is behind the primary (absent while unknown).',
      labelNames: ['replica'] as const, registers: [this.registry],
      collect() {
        this.reset();
        for (const r of metrics.replicas?.() ?? []) if (r.lagSeconds !== null) this.set({ replica: r.name }, r.lagSeconds);
      },
    });
    // Read from the request handler's own count when scraped, rather than moved up and down by every request.
    new Gauge({
      name: 'http_requests_in_flight', help: 'Requests being served right now (open subscription streams included).', registers: [this.registry],
      collect() {
        this.set(metrics.requestsInFlight?.() ?? 0);
      },
    });
    // Read from the cache when scraped: it counts for itself, in the page's loop, at no cost to it.
    new Counter({
      name: 'secret_values_cache_hits_total', help: 'Secret values revealed from those kept decrypted (without deciphering them again).',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(metrics.decryptedValues?.hits ?? 0);
      },
    });
    new Counter({
      name: 'secret_values_cache_misses_total', help: 'Secret values to reveal that were not kept decrypted (deciphered, then kept if they decrypted).',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(metrics.decryptedValues?.misses ?? 0);
      },
    });
    new Gauge({
      name: 'secret_values_cache_size', help: 'Secret values kept decrypted: entries, and bytes (an estimate of their memory).',
      labelNames: ['unit'] as const, registers: [this.registry],
      collect() {
        const size = metrics.decryptedValues?.size ?? { entries: 0, bytes: 0 };
        this.set({ unit: 'entries' }, size.entries);
        this.set({ unit: 'bytes' }, size.bytes);
      },
    });
    new Gauge({
      name: 'graphql_subscriptions_open', help: 'Subscription streams open in this process.', registers: [this.registry],
      collect() {
        this.set(metrics.openSubscriptions?.() ?? 0);
      },
    });
  }

  observeReplicas(statuses: () => ReplicaStatus[]): void {
    this.replicas = statuses;
  }

  observeRequestsInFlight(count: () => number): void {
    this.requestsInFlight = count;
  }

  /** The secret values kept decrypted (decrypted-values-cache.ts): its hits, misses and size on /metrics. */
  observeDecryptedValues(cache: { hits: number; misses: number; size: { entries: number; bytes: number } }): void {
    this.decryptedValues = cache;
  }

  observeSubscriptions(count: () => number): void {
    this.openSubscriptions = count;
  }

  observePool(pool: pg.Pool): void {
    this.pool = pool;
  }

  /** The label for an operation name: the name itself for the first 200 distinct ones, then "other". */
  operationLabel(name: string | undefined | null): string {
    if (!name) return 'anonymous';
    if (!OPERATION_NAME.test(name)) return 'other';
    if (this.operationNames.has(name)) return name;
    if (this.operationNames.size >= MAX_OPERATION_NAMES) return 'other';
    this.operationNames.add(name);
    return name;
  }
}
