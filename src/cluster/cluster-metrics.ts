// /metrics with several workers: whichever worker a scrape reaches asks the primary, which gathers every
// serving worker's metrics and its own into one exposition. Each series carries a `worker` label (1 to
// WORKERS, or `primary`) rather than being summed: a worker that is replaced starts its counters from zero
// under the same label, which Prometheus reads as a counter reset (a sum would just drop, and rate() would
// count the survivors' totals again). Sum over `worker` in queries: sum(rate(http_requests_total[5m])).
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, Counter, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from '../observability/logger.ts';
import { isToPrimary, type WorkerMetrics } from './messages.ts';
import { sendTo, type WorkerPool } from './worker-pool.ts';

/** A worker that does not hand its metrics over within this time is left out of that scrape (and logged). */
const WORKER_TIMEOUT_MS = 2000;

export class ClusterMetrics {
  private readonly registry = new Registry();
  readonly restarts = new Counter({
    name: 'worker_restarts_total', help: 'Workers the primary started again after one exited on its own.', registers: [this.registry],
  });
  private readonly waiting = new Map<number, (metrics: WorkerMetrics) => void>();
  private nextRequest = 0;
  private readonly pool: WorkerPool;
  private readonly logger: Logger;

  constructor(pool: WorkerPool, logger: Logger) {
    this.pool = pool;
    this.logger = logger;
    collectDefaultMetrics({ register: this.registry });
    cluster.on('message', (worker, message) => {
      if (!isToPrimary(message)) return;
      if (message.gateway === 'metrics?') {
        void this.exposition().then(
          (text) => sendTo(worker, { gateway: 'metrics', id: message.id, text }),
          (error: Error) => {
            this.logger.error({ err: error }, 'metrics of the workers could not be put together');
            sendTo(worker, { gateway: 'metrics', id: message.id, error: error.message });
          },
        );
      } else if (message.gateway === 'own-metrics') {
        this.waiting.get(message.id)?.(message.metrics);
      }
    });
  }

  /** Every serving worker's series and the primary's, each labelled with where it comes from. */
  async exposition(): Promise<string> {
    const answers = await Promise.all(this.pool.serving().map(async ({ slot, worker }) => {
      const metrics = await this.ask(worker);
      if (!metrics) this.logger.warn({ worker: slot, timeoutMs: WORKER_TIMEOUT_MS }, 'worker did not hand over its metrics in time: left out of this scrape');
      return metrics && labelled(metrics, String(slot));
    }));
    const own = labelled(await this.registry.getMetricsAsJSON(), 'primary');
    return AggregatorRegistry.aggregate([...answers.filter((a) => a !== undefined), own]).metrics();
  }

  private ask(worker: Worker): Promise<WorkerMetrics | undefined> {
    const id = this.nextRequest++;
    return new Promise((resolve) => {
      const done = (metrics: WorkerMetrics | undefined) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(metrics);
      };
      const timer = setTimeout(() => done(undefined), WORKER_TIMEOUT_MS);
      this.waiting.set(id, done);
      sendTo(worker, { gateway: 'own-metrics?', id });
    });
  }
}

/**
 * The series with a `worker` label added. Aggregated by `sum`, which adds up only series with equal labels:
 * with the label, no two are equal, so every series is kept as it is (the aggregators prom-client gives some
 * default metrics, such as averaging the event loop lag or omitting the start time, would merge or drop them).
 */
function labelled(metrics: WorkerMetrics, worker: string): WorkerMetrics {
  return metrics.map((metric) => ({
    ...metric, aggregator: 'sum', values: metric.values.map((value) => ({ ...value, labels: { ...value.labels, worker } })),
  }));
}
