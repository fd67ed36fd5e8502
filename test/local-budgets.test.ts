// The per-key budget of a process without Redis is counted by LocalBudgets (src/limits/rate-limiter.ts), a
// hand-written replacement for rate-limiter-flexible's RateLimiterMemory (issue 41). A client must not be able to
// tell them apart: the same requests of several keys, at the same clock times over many windows (exactly at a
// window's end too), get the same answer from both, allowed or refused, with the same limit, remaining
// requests and seconds until the reset (the RateLimit-* headers and the 429's message).
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { seeded } from '../bench/dataset.ts';
import { RateLimiter, RateLimitExceeded, stateOf } from '../src/limits/rate-limiter.ts';
import type { RateLimitState } from '../src/observability/request-scope.ts';

/** The window RateLimiter configured RateLimiterMemory with, before LocalBudgets: one minute. */
const WINDOW_MS = 60_000;
const STEPS = 10_000;
const KEYS = ['key-a', 'key-b', 'key-c', 'key-d', 'key-e'];
/** A random first seed each run, printed with every mismatch; BUDGET_SEED=<n> replays one. */
const FIRST_SEED = Number(process.env.BUDGET_SEED ?? Math.floor(Math.random() * 2 ** 31));

interface Outcome extends RateLimitState {
  allowed: boolean;
  message?: string;
}

/** LocalBudgets, through RateLimiter as the request path calls it (no Redis, no workers). */
function fromLocalBudgets(limiter: RateLimiter, key: string): Outcome {
  try {
    const state = limiter.consumeAtOnce(key);
    if (!state) throw new Error('RateLimiter did not count in this process: LocalBudgets is not in use');
    return { allowed: true, ...state };
  } catch (refusal) {
    if (!(refusal instanceof RateLimitExceeded)) throw refusal;
    return { allowed: false, ...refusal.state, message: refusal.message };
  }
}

/** RateLimiterMemory, its answer mapped as RateLimiter maps a shared budget's (stateOf, RateLimitExceeded). */
async function fromLibrary(memory: RateLimiterMemory, key: string, limit: number): Promise<{ outcome: Outcome; msBeforeNext: number }> {
  try {
    const res = await memory.consume(key, 1);
    return { outcome: { allowed: true, ...stateOf(res, limit) }, msBeforeNext: res.msBeforeNext };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    const state = stateOf(rejection, limit);
    return { outcome: { allowed: false, ...state, message: new RateLimitExceeded(state, 'api-key').message }, msBeforeNext: rejection.msBeforeNext };
  }
}

interface Run {
  steps: number;
  refused: number;
  /** Requests made exactly when their key's window ends (the library's msBeforeNext after the previous one). */
  atWindowEnd: number;
  /** Requests 1 ms before or after their key's window ends. */
  nextToWindowEnd: number;
}

/**
 * One seeded sequence of STEPS requests, in moves: a burst of one key's requests (up to twice its budget, a few
 * ms apart or at the same instant), a jump to a key's window end (or 1 ms either side of it) and a request of
 * that key, a request of any key after a few seconds, or an idle stretch of several windows.
 */
async function runSequence(firstSeed: number, perMinute: number): Promise<Run> {
  const random = seeded(firstSeed + perMinute);
  const ours = new RateLimiter({ perMinute });
  const library = new RateLimiterMemory({ points: perMinute, duration: WINDOW_MS / 1000, keyPrefix: 'differential' });
  /** When each key's current window ends, as the library says. */
  const windowEnds = new Map<string, number>();
  const run: Run = { steps: STEPS, refused: 0, atWindowEnd: 0, nextToWindowEnd: 0 };
  const history: string[] = [];
  /** The next requests: how far to move the clock before each (or to which instant), and whose it is. */
  const planned: Array<{ after?: number; at?: number; key: string }> = [];
  // About 45% of the requests in bursts, whatever the budget (a burst is perMinute + 1.5 requests on average).
  const burst = 0.52 / (0.55 * (perMinute + 1.5) + 0.52);
  for (let step = 0; step < STEPS; step++) {
    if (planned.length === 0) {
      const roll = random.next();
      const key = random.next() < 0.4 ? KEYS[0]! : random.pick(KEYS);
      if (roll < burst) {
        const count = random.int(1, 2 * perMinute + 2);
        for (let i = 0; i < count; i++) planned.push({ after: random.pick([0, 0, 1, random.int(2, 400)]), key });
      } else if (roll < burst + (1 - burst) * 0.6 && windowEnds.size > 0) {
        const [endsKey, endsAt] = random.pick([...windowEnds]);
        planned.push({ at: endsAt + random.pick([0, 0, 0, -1, 1]), key: random.next() < 0.85 ? endsKey : key });
        if (random.next() < 0.3) planned.push({ after: 0, key: endsKey });
      } else if (roll < burst + (1 - burst) * 0.95) planned.push({ after: random.pick([random.int(1, 5_000), 1000 * random.int(1, 70)]), key });
      else planned.push({ after: random.int(WINDOW_MS, 10 * WINDOW_MS), key });
    }
    const { after, at: target, key } = planned.shift()!;
    const now = Date.now();
    vi.advanceTimersByTime(Math.max(0, target === undefined ? after! : target - now));
    const at = Date.now();
    if (windowEnds.get(key) === at) run.atWindowEnd++;
    else if (Math.abs((windowEnds.get(key) ?? Number.NaN) - at) === 1) run.nextToWindowEnd++;
    const local = fromLocalBudgets(ours, key);
    const { outcome, msBeforeNext } = await fromLibrary(library, key, perMinute);
    windowEnds.set(key, at + msBeforeNext);
    history.push(`t=${at} ${key}: ${JSON.stringify(outcome)}`);
    if (!outcome.allowed) run.refused++;
    expect(local, `BUDGET_SEED=${firstSeed} (${perMinute}/min), step ${step}, after:\n${history.slice(-8).join('\n')}`).toEqual(outcome);
  }
  await ours.close();
  return run;
}

describe('LocalBudgets against RateLimiterMemory', () => {
  beforeEach(() => {
    // Date.now() and the library's own timers (it deletes a key's record when its window ends) move together.
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 27, 9, 0, 0, 137) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([1, 2, 5, 30])('gives every request the same answer, %i requests a minute', async (perMinute) => {
    const run = await runSequence(FIRST_SEED, perMinute);
    // The sequence reached what it is for: refusals, and requests exactly at (and next to) a window's end.
    expect(run.refused, `BUDGET_SEED=${FIRST_SEED}`).toBeGreaterThan(STEPS / 20);
    expect(run.refused, `BUDGET_SEED=${FIRST_SEED}`).toBeLessThan(STEPS * 0.95);
    expect(run.atWindowEnd, `BUDGET_SEED=${FIRST_SEED}`).toBeGreaterThan(STEPS / 20);
    expect(run.nextToWindowEnd, `BUDGET_SEED=${FIRST_SEED}`).toBeGreaterThan(STEPS / 40);
  });
});
