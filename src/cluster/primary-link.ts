// A worker's side of the cluster (WORKERS > 1): the start-up the primary did for it, the stop it asks for,
// and /metrics for the whole service. The worker otherwise runs src/main.ts as a single process would.
import cluster from 'node:cluster';
import { isToWorker, WORKER_VARIABLE, type ToPrimary, type ToWorker, type WorkerBrief } from './messages.ts';
import type { Metrics } from '../observability/metrics.ts';

/** How long a scrape waits for the primary to gather every worker's metrics. */
const METRICS_TIMEOUT_MS = 5000;

function send(message: ToPrimary): void {
  if (process.connected) process.send!(message);
}

export class PrimaryLink {
  readonly brief: WorkerBrief;
  private readonly scrapes = new Map<number, (answer: { text: string } | { error: string }) => void>();
  private nextScrape = 0;
  private metrics: Metrics | undefined;
  /** Set once main.ts can act on a stop; until then a stop is only noted. */
  private stop: ((reason: string) => void) | undefined;
  private stopNoted: string | undefined;

  private constructor(brief: WorkerBrief) {
    this.brief = brief;
  }

  /**
   * In a worker forked by the gateway's primary, asks it for the brief; elsewhere, undefined. The primary sends
   * nothing before it is asked (a message that arrives before a listener exists is lost), and whatever follows
   * the brief is heard from then on.
   */
  static join(): Promise<PrimaryLink | undefined> {
    if (!cluster.isWorker || !process.env[WORKER_VARIABLE]) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      let link: PrimaryLink | undefined;
      process.on('message', (message: unknown) => {
        if (!isToWorker(message)) return;
        if (message.gateway === 'brief' && !link) resolve((link = new PrimaryLink(message.brief)));
        else link?.receive(message);
      });
      send({ gateway: 'brief?' });
    });
  }

  /**
   * A stop is asked for by the primary (which heard the signal), or by SIGTERM to this worker alone (it is then
   * replaced). SIGINT is left to the primary: Ctrl-C in a terminal reaches the whole process group, and the
   * primary stops the workers in order. (A primary that dies takes its workers along: node:cluster exits a
   * worker whose channel to the primary closes unexpectedly.)
   */
  onStop(stop: (reason: string) => void): void {
    this.stop = stop;
    process.on('SIGINT', () => {});
    process.on('SIGTERM', () => stop('SIGTERM'));
    if (this.stopNoted) stop(this.stopNoted);
  }

  /** Listening, started: the primary prints the announcement once every worker has sent it. */
  serving(announcement: string): void {
    send({ gateway: 'serving', announcement });
  }

  /**
   * /metrics answered by this worker shows every worker's series, each labelled with its `worker` (the primary
   * gathers them), and this worker hands its own over when the primary asks.
   */
  shareMetrics(metrics: Metrics): void {
    this.metrics = metrics;
    metrics.exposition = () => this.serviceMetrics();
  }

  private receive(message: ToWorker): void {
    if (message.gateway === 'stop') {
      if (this.stop) this.stop('primary');
      else this.stopNoted = 'primary';
    } else if (message.gateway === 'metrics') {
      this.scrapes.get(message.id)?.(message);
      this.scrapes.delete(message.id);
    } else if (message.gateway === 'own-metrics?' && this.metrics) {
      // A registry that cannot be read sends nothing: the primary leaves this worker out and logs it.
      this.metrics.registry.getMetricsAsJSON().then((own) => send({ gateway: 'own-metrics', id: message.id, metrics: own }), () => {});
    }
  }

  private serviceMetrics(): Promise<string> {
    const id = this.nextScrape++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.scrapes.delete(id);
        reject(new Error('the cluster primary did not answer in time'));
      }, METRICS_TIMEOUT_MS);
      this.scrapes.set(id, (answer) => {
        clearTimeout(timer);
        if ('text' in answer) resolve(answer.text);
        else reject(new Error(answer.error));
      });
      send({ gateway: 'metrics?', id });
    });
  }
}
