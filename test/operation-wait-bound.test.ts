// The bound of a wait for a turn (limits/operations-at-once.ts), on a fake clock: each moment is exact, so the
// test asserts the order of events, not a machine's speed. A file of its own: the fake timers are the whole
// process's, and no server of another test may be running on them.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OperationsAtOnce, OperationWaitTimeoutError } from '../src/limits/operations-at-once.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe("a wait's bound", () => {
  // One timer serves the whole queue (limits/operations-at-once.ts): each waiter must still be refused when its
  // own wait is over, neither with the waiter before it nor later, and one whose turn comes in time must run.
  it('refuses each waiter when its own wait is over, and runs the one whose turn comes in time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const bound = 300;
    const operations = new OperationsAtOnce(1, bound);
    let finishHeld!: () => void;
    const held = operations.run(() => new Promise<void>((resolve) => { finishHeld = resolve; }));
    const settled: string[] = [];
    const outcome = (name: string, promise: Promise<unknown>) => promise.then(
      () => void settled.push(`${name} ran`),
      (error: unknown) => void settled.push(error instanceof OperationWaitTimeoutError ? `${name} refused` : `${name} failed: ${String(error)}`),
    );
    const after = (ms: number) => vi.advanceTimersByTimeAsync(ms);
    void outcome('first', operations.run(() => 'first')); // waits from 0 to 300
    await after(150);
    void outcome('second', operations.run(() => 'second')); // from 150 to 450
    await after(100);
    const third = outcome('third', operations.run(() => 'third')); // from 250 to 550
    expect(operations.waiting).toBe(3);

    await after(49); // 299
    expect(settled).toEqual([]);
    await after(1); // 300: the first's wait is over, not the second's
    expect(settled).toEqual(['first refused']);
    await after(149); // 449
    expect(settled).toEqual(['first refused']);
    await after(1); // 450
    expect(settled).toEqual(['first refused', 'second refused']);

    // The third's turn comes before its bound: it runs, and no timer is left for the empty queue.
    await after(50); // 500
    finishHeld();
    await held;
    await third;
    expect(settled).toEqual(['first refused', 'second refused', 'third ran']);
    expect(vi.getTimerCount()).toBe(0);
  });
});
