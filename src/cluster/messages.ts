// What the cluster primary and its workers tell each other over node:cluster's IPC channel. Every message
// of ours carries `gateway`, so it never mixes with other users of the channel (rate-limiter-flexible's
// cluster store, which has its own `channel`).
import type { Registry } from 'prom-client';
import type { DemoKey } from '../demo/demo-data.ts';

/**
 * Set in a worker's environment by the primary that forked it: a process forked by another node:cluster primary
 * (pm2's cluster mode) is not one of ours, and runs as a single process.
 */
export const WORKER_VARIABLE = 'DEPLOYMENTS_GATEWAY_WORKER';

/** What a worker needs from the start-up the primary did for it. */
export interface WorkerBrief {
  /** 1 to WORKERS: a replacement takes the number of the worker it replaces (logs, the metrics' `worker` label). */
  slot: number;
  /** The database the primary opened and migrated (the embedded server's URL carries its generated password). */
  databaseUrl: string;
  databaseMode: 'embedded' | 'external';
  /** The demo key, in embedded demo mode: GraphiQL opens with it. */
  demo: DemoKey | undefined;
}

/** A worker's registry, as `getMetricsAsJSON` gives it (structured-clone safe). */
export type WorkerMetrics = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

export type ToPrimary =
  | { gateway: 'brief?' }
  /** Listening and ready; the text is what the service prints once every worker is. */
  | { gateway: 'serving'; announcement: string }
  /** A scrape of /metrics reached this worker: the primary answers with every worker's metrics. */
  | { gateway: 'metrics?'; id: number }
  | { gateway: 'own-metrics'; id: number; metrics: WorkerMetrics }
  /** Read your writes: a caller's write position to keep (cluster-write-positions.ts), and one to look up. */
  | { gateway: 'note-write'; id: number; caller: string; position: string; ttlMs: number }
  | { gateway: 'write-position?'; id: number; caller: string };

export type ToWorker =
  | { gateway: 'brief'; brief: WorkerBrief }
  | { gateway: 'stop' }
  /** Every worker's metrics, or why there are none. */
  | { gateway: 'metrics'; id: number; text: string } | { gateway: 'metrics'; id: number; error: string }
  | { gateway: 'own-metrics?'; id: number }
  /** The answers to `note-write` and `write-position?`; a position as sortableWalPosition writes it, null: none. */
  | { gateway: 'write-noted'; id: number }
  | { gateway: 'write-position'; id: number; position: string | null };

const isOurs = (message: unknown) => typeof message === 'object' && message !== null && 'gateway' in message;

export const isToPrimary = (message: unknown): message is ToPrimary => isOurs(message);
export const isToWorker = (message: unknown): message is ToWorker => isOurs(message);
