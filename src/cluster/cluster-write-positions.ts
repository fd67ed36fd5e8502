// Read your writes among the workers of one gateway (WORKERS > 1 without REDIS_URL): the cluster primary keeps
// each caller's last write position, as it keeps the rate-limit counts, and every worker asks it over the IPC
// channel. A write's worker waits for the primary's acknowledgement before it answers, so the record is there
// for whichever worker takes the caller's next request. A worker whose primary does not answer in time sends
// its read to the database primary rather than guess.
import cluster from 'node:cluster';
import type { Logger } from '../observability/logger.ts';
import { fromSortableWalPosition, sortableWalPosition, UNKNOWN_WAL_POSITION, type WalPosition } from '../db/wal-position.ts';
import { LocalWritePositions, type WritePositions } from '../db/write-positions.ts';
import { isToPrimary, isToWorker, type ToPrimary, type ToWorker } from './messages.ts';
import { sendTo } from './worker-pool.ts';

/** How long a worker waits for the primary (the rate limits' wait): longer, and the primary is stuck or gone. */
const PRIMARY_TIMEOUT_MS = 1000;

type Question = Extract<ToPrimary, { gateway: 'note-write' | 'write-position?' }>;
type Answer = Extract<ToWorker, { gateway: 'write-noted' | 'write-position' }>;
type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;

/** The cluster primary's side: answers every worker's notes and questions from one map. */
export function keepWritePositionsForWorkers(): void {
  const positions = new LocalWritePositions();
  cluster.on('message', (worker, message) => {
    if (!isToPrimary(message)) return;
    if (message.gateway === 'note-write') {
      positions.noteAtOnce(message.caller, fromSortableWalPosition(message.position), message.ttlMs);
      sendTo(worker, { gateway: 'write-noted', id: message.id });
    } else if (message.gateway === 'write-position?') {
      const position = positions.of(message.caller);
      sendTo(worker, { gateway: 'write-position', id: message.id, position: position === undefined ? null : sortableWalPosition(position) });
    }
  });
}

/** A worker's side: the WritePositions of a worker, kept by its primary. */
export class ClusterWritePositions implements WritePositions {
  readonly #waiting = new Map<number, (answer: Answer | undefined) => void>();
  readonly #logger: Logger | undefined;
  readonly #onMessage = (message: unknown) => {
    if (!isToWorker(message) || (message.gateway !== 'write-noted' && message.gateway !== 'write-position')) return;
    this.#waiting.get(message.id)?.(message);
  };
  #next = 0;

  constructor(logger?: Logger) {
    this.#logger = logger;
    process.on('message', this.#onMessage);
  }

  async note(caller: string, position: WalPosition, ttlMs: number): Promise<void> {
    const answer = await this.#ask({ gateway: 'note-write', caller, position: sortableWalPosition(position), ttlMs });
    if (!answer) this.#logger?.warn({ caller }, 'the cluster primary did not acknowledge a write position in time: the caller\'s next read may miss the write on a replica');
  }

  async of(caller: string): Promise<WalPosition | undefined> {
    const answer = await this.#ask({ gateway: 'write-position?', caller });
    if (answer?.gateway !== 'write-position') return UNKNOWN_WAL_POSITION;
    return answer.position === null ? undefined : fromSortableWalPosition(answer.position);
  }

  close(): Promise<void> {
    process.off('message', this.#onMessage);
    for (const answer of this.#waiting.values()) answer(undefined);
    return Promise.resolve();
  }

  /** The primary's answer, or undefined when it cannot be asked or does not answer in time. */
  #ask(question: Unnumbered<Question>): Promise<Answer | undefined> {
    if (!process.connected) return Promise.resolve(undefined);
    const id = this.#next++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(undefined), PRIMARY_TIMEOUT_MS);
      const done = (answer: Answer | undefined) => {
        clearTimeout(timer);
        this.#waiting.delete(id);
        resolve(answer);
      };
      this.#waiting.set(id, done);
      process.send!({ ...question, id } satisfies ToPrimary);
    });
  }
}
