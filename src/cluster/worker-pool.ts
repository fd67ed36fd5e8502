// The primary's workers: WORKERS processes forked with node:cluster, each running src/main.ts on the shared
// port. A worker that exits on its own is replaced after a delay that doubles with each exit in the last
// minute; the fifth exit within a minute is a crash loop, which stops the service rather than churn forever.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../observability/logger.ts';
import { isToPrimary, WORKER_VARIABLE, type ToWorker, type WorkerBrief } from './messages.ts';

const FIRST_RESTART_DELAY_MS = 100;
const CRASH_WINDOW_MS = 60_000;
/** Exits within CRASH_WINDOW_MS that make a crash loop. */
const CRASH_LOOP_EXITS = 5;

export interface WorkerPoolOptions {
  count: number;
  brief: (slot: number) => WorkerBrief;
  logger: Logger;
  /** A worker was started again after it exited. */
  onRestart: () => void;
  /** Workers keep exiting: the line says how; the service must stop. */
  onCrashLoop: (line: string) => void;
}

export interface ServingWorker {
  slot: number;
  worker: Worker;
}

const describeExit = (code: number | null, signal: string | null) => (signal ? `was killed by ${signal}` : `exited with code ${code}`);

export function sendTo(worker: Worker, message: ToWorker): void {
  if (worker.isConnected()) worker.send(message);
}

export class WorkerPool {
  private readonly options: WorkerPoolOptions;
  private readonly slots = new Map<Worker, number>();
  /** Workers that asked for their brief, and so hear what the primary sends. */
  private readonly briefed = new Set<Worker>();
  private readonly servingWorkers = new Set<Worker>();
  private readonly pendingRestarts = new Set<NodeJS.Timeout>();
  private recentExits: number[] = [];
  private started = false;
  private stopping = false;
  private startUp: { resolve: (announcement: string) => void; reject: (error: Error) => void } | undefined;

  constructor(options: WorkerPoolOptions) {
    this.options = options;
    cluster.on('message', (worker, message) => this.onMessage(worker, message));
    cluster.on('exit', (worker, code, signal) => this.onExit(worker, code, signal));
  }

  /** Forks every worker; resolves with the first one's announcement once all serve, rejects if one exits first. */
  start(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.startUp = { resolve, reject };
      for (let slot = 1; slot <= this.options.count; slot++) this.fork(slot);
    });
  }

  /** The workers that answer requests now, by slot. */
  serving(): ServingWorker[] {
    return [...this.servingWorkers].map((worker) => ({ slot: this.slots.get(worker)!, worker }));
  }

  /**
   * Asks every worker to stop (each drains its requests in flight) and resolves once all have exited: true if
   * each exited with 0. A worker still running after `timeoutMs` is killed.
   */
  async stop(timeoutMs: number): Promise<boolean> {
    this.stopping = true;
    for (const timer of this.pendingRestarts) clearTimeout(timer);
    this.pendingRestarts.clear();
    let clean = true;
    const exits = [...this.slots.keys()].map((worker) => new Promise<void>((resolve) => {
      worker.once('exit', (code) => {
        if (code !== 0) clean = false;
        resolve();
      });
    }));
    // A worker still loading its code hears nothing yet: it is told to stop when it asks for its brief.
    for (const worker of this.briefed) sendTo(worker, { gateway: 'stop' });
    const timer = setTimeout(() => {
      for (const [worker, slot] of this.slots) {
        this.options.logger.warn({ worker: slot, pid: worker.process.pid, timeoutMs }, 'worker did not stop in time: killing it');
        worker.process.kill('SIGKILL');
      }
    }, timeoutMs);
    await Promise.all(exits);
    clearTimeout(timer);
    return clean;
  }

  /** Quits at once (a second signal): no worker drains. */
  kill(): void {
    this.stopping = true;
    for (const worker of this.slots.keys()) worker.process.kill('SIGKILL');
  }

  private fork(slot: number): void {
    const worker = cluster.fork({ [WORKER_VARIABLE]: String(slot) });
    this.slots.set(worker, slot);
  }

  private onMessage(worker: Worker, message: unknown): void {
    if (!isToPrimary(message)) return;
    const slot = this.slots.get(worker);
    if (slot === undefined) return;
    if (message.gateway === 'brief?') {
      sendTo(worker, { gateway: 'brief', brief: this.options.brief(slot) });
      this.briefed.add(worker);
      if (this.stopping) sendTo(worker, { gateway: 'stop' });
    }
    if (message.gateway !== 'serving') return;
    this.servingWorkers.add(worker);
    if (this.started) {
      this.options.logger.info({ worker: slot, pid: worker.process.pid }, 'worker serving again');
    } else if (this.servingWorkers.size === this.options.count) {
      this.started = true;
      this.startUp?.resolve(message.announcement);
    }
  }

  private onExit(worker: Worker, code: number | null, signal: string | null): void {
    const slot = this.slots.get(worker);
    if (slot === undefined) return;
    this.slots.delete(worker);
    this.briefed.delete(worker);
    this.servingWorkers.delete(worker);
    if (this.stopping) {
      if (code !== 0) this.options.logger.warn({ worker: slot, pid: worker.process.pid, code, signal }, `worker ${describeExit(code, signal)} while stopping`);
      return;
    }
    const how = `worker ${slot} (PID ${worker.process.pid}) ${describeExit(code, signal)}`;
    if (!this.started) {
      // Each worker starts as the first did; one that cannot is not helped by another attempt.
      this.startUp?.reject(new Error(`${how} while starting`));
      return;
    }
    const now = Date.now();
    this.recentExits = [...this.recentExits.filter((at) => now - at < CRASH_WINDOW_MS), now];
    if (this.recentExits.length >= CRASH_LOOP_EXITS) {
      this.options.onCrashLoop(`workers keep exiting (${this.recentExits.length} times within ${CRASH_WINDOW_MS / 1000} s; the last: ${how}): stopping the service`);
      return;
    }
    const delayMs = FIRST_RESTART_DELAY_MS * 2 ** (this.recentExits.length - 1);
    this.options.logger.error({ worker: slot, pid: worker.process.pid, code, signal, restartInMs: delayMs }, `${how}; starting another in ${delayMs} ms`);
    const timer = setTimeout(() => {
      this.pendingRestarts.delete(timer);
      this.options.onRestart();
      this.fork(slot);
    }, delayMs);
    this.pendingRestarts.add(timer);
  }
}
