// How many GraphQL operations (of either door) execute at once in this process; the others wait their turn,
// first come first served. Without it, under many concurrent clients, a page's second statement (its secrets,
// its relations) queued in the pool behind the first statements of every request that arrived meanwhile, and
// each waiting page kept its rows alive: at 64 connections the REST page of 100 cost 11.4 ms of CPU against 7.2
// at 8, 10.0 with this (docs/performance.md#operations-at-once). With as many operations at once as the pool
// has connections, a page that has started finishes first.
//
// The operation runner takes an operation's turn before it makes anything of its own (the GraphQL context, its
// loaders): what a request makes before a long wait is promoted to V8's old generation while it waits, and the
// page it then loads hangs off those old objects, so a scavenge cannot free it
// (docs/performance.md#turns-at-the-door). The plugin below is Yoga's side of it, for what the runner declines.
//
// A wait has the same bound as a wait for a free connection in the pool (DB_CONNECT_TIMEOUT_MS): past it the
// operation is answered as the pool's timeout is, 503 with Retry-After.
import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** Recognised by its message as "the database is unavailable" (db/connection-loss.ts): 503 with Retry-After. */
export class OperationWaitTimeoutError extends Error {
  override name = 'OperationWaitTimeoutError';
  constructor(waitMs: number) {
    super(`No turn to execute within ${waitMs} ms: as many operations as the pool has connections are running`);
  }
}

interface Waiter {
  start: () => void;
  fail: (error: Error) => void;
  /** When its wait is over (performance.now()). */
  deadline: number;
}

export class OperationsAtOnce {
  readonly #limit: number;
  readonly #waitMs: number;
  #running = 0;
  /** In the order they came, which is the order of their deadlines (every wait has the same bound). */
  readonly #waiting = new Set<Waiter>();
  /**
   * One timer for the whole queue, due when its oldest waiter's wait is over: a timer per waiter, set and cleared,
   * was 1% of a light page's CPU at 64 connections, where most requests wait.
   */
  #timer: NodeJS.Timeout | undefined;
  constructor(limit: number, waitMs: number) {
    if (!(limit >= 1)) throw new Error(`operations at once must be at least 1, not ${limit}`);
    this.#limit = limit;
    this.#waitMs = waitMs;
  }

  /** How many operations wait for a turn now (tests see a queue form without guessing how long it takes). */
  get waiting(): number {
    return this.#waiting.size;
  }

  /** Runs `operation` in its turn; rejects with OperationWaitTimeoutError if the turn does not come in time. */
  async run<T>(operation: () => T | Promise<T>): Promise<T> {
    // A free turn is taken without an await (the hot path); otherwise the finishing operation's place passes on.
    if (this.#running < this.#limit) this.#running++;
    else await this.#turn();
    try {
      return await operation();
    } finally {
      this.#finished();
    }
  }

  #turn(): Promise<void> {
    return new Promise((resolve, reject) => {
      // The finishing operation's place passes to this one (start): the count does not change.
      this.#waiting.add({ start: resolve, fail: reject, deadline: performance.now() + this.#waitMs });
      this.#timer ??= setTimeout(() => this.#expire(), this.#waitMs);
    });
  }

  /** Refuses every waiter whose wait is over, the oldest first, then sets the timer for the next one's. */
  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (const waiter of this.#waiting) {
      if (waiter.deadline > now) {
        this.#timer = setTimeout(() => this.#expire(), waiter.deadline - now);
        return;
      }
      this.#waiting.delete(waiter);
      waiter.fail(new OperationWaitTimeoutError(this.#waitMs));
    }
  }

  #finished(): void {
    // A Set iterates in insertion order: the longest waiting goes first.
    const next = this.#waiting.values().next();
    if (next.done) {
      this.#running--;
      return;
    }
    this.#waiting.delete(next.value);
    // Nobody left waiting: no timer either (it would hold the process up to a wait's bound after its last request).
    if (this.#waiting.size === 0) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    next.value.start();
  }
}

/**
 * Yoga's side: every query and mutation it executes does so in its turn; subscriptions are not held to it (a
 * stream lasts as long as its client). Placed after the plugins that wrap execution, so that the turn covers
 * what they add (a replica's failed read run again on the primary).
 */
export function useOperationsAtOnce(operations: OperationsAtOnce): Plugin {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args) => executeInTurn(operations, () => executeFn(args)));
    },
  };
}

/**
 * An execution in its turn; one whose turn does not come in time ends with an error, as a resolver's would:
 * masked as the database being unavailable (graphql/mask-error.ts). The plugin above and the operation runner
 * both run executions so.
 */
export function executeInTurn<Result>(operations: OperationsAtOnce, execute: () => Result | Promise<Result>): Promise<Result | ExecutionResult> {
  return operations.run(execute).catch((error: unknown): ExecutionResult => {
    if (!(error instanceof OperationWaitTimeoutError)) throw error;
    return { errors: [new GraphQLError(error.message, { originalError: error })] };
  });
}
