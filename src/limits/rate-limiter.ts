// Per-API-key request budgets (a fixed one-minute window), and a budget of failed authentications per client
// address, past which wrong keys get 429 instead of 401. In memory by default; in Redis
// when REDIS_URL is set, so that replicas share one budget. If Redis cannot answer, each replica falls back to
// its own in-memory budget rather than refusing or waving everything through.
// With several workers (WORKERS > 1) "in memory" is the cluster primary's memory, which every worker asks over
// IPC, so a key's budget is the configured one, not one per worker; it is also Redis's fallback there.
import { Redis } from 'ioredis';
import { RateLimiterCluster, RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../observability/logger.ts';
import type { RateLimitState } from '../observability/request-scope.ts';

const WINDOW_SECONDS = 60;
/** A worker waits this long for the cluster primary's count, then counts on its own (the primary is stuck or gone). */
const PRIMARY_TIMEOUT_MS = 1000;
/** Failed authentications allowed per client address and minute. */
export const AUTH_FAILURES_PER_MINUTE = 30;

export class RateLimitExceeded extends Error {
  override name = 'RateLimitExceeded';
  readonly state: RateLimitState;
  readonly subject: 'api-key' | 'address';
  constructor(state: RateLimitState, subject: 'api-key' | 'address') {
    super(subject === 'api-key'
      ? `Rate limit exceeded: at most ${state.limit} requests per minute per API key; retry in ${state.resetSeconds} s`
      : `Too many failed authentications from this address; retry in ${state.resetSeconds} s`);
    this.state = state;
    this.subject = subject;
  }
}

export interface RateLimiterOptions {
  perMinute: number;
  redisUrl?: string;
  logger?: Logger;
  /** Separates budgets of independent deployments (and of tests) sharing one Redis. */
  keyPrefix?: string;
  /** A cluster worker: budgets are counted by the primary (its RateLimiterClusterMaster), for every worker at once. */
  acrossWorkers?: boolean;
}

type Budget = 'perKey' | 'authFailures';

/**
 * Budgets counted in this process alone, at once (without a promise): what RateLimiterMemory counts, the same
 * fixed window (it starts at a key's first request and lasts WINDOW_SECONDS), for the common case of one
 * process without Redis. A request's consume through RateLimiterMemory made two promises and a result of its own
 * (docs/performance.md#authentication-at-once). Windows that have ended are swept once per window.
 */
class LocalBudgets {
  readonly #windows = new Map<string, { used: number; endsAt: number }>();
  readonly #points: number;
  #nextSweep = 0;

  constructor(points: number) {
    this.#points = points;
  }

  /** Spends one point of the key's budget: its state, or RateLimitExceeded once the budget is gone. */
  consume(key: string): RateLimitState {
    const now = Date.now();
    let window = this.#windows.get(key);
    if (!window || window.endsAt <= now) {
      if (now >= this.#nextSweep) this.#sweep(now);
      window = { used: 0, endsAt: now + WINDOW_SECONDS * 1000 };
      this.#windows.set(key, window);
    }
    window.used += 1;
    const state = {
      limit: this.#points, remaining: Math.max(0, this.#points - window.used), resetSeconds: Math.max(1, Math.ceil((window.endsAt - now) / 1000)),
    };
    if (window.used > this.#points) throw new RateLimitExceeded(state, 'api-key');
    return state;
  }

  #sweep(now: number): void {
    for (const [key, window] of this.#windows) if (window.endsAt <= now) this.#windows.delete(key);
    this.#nextSweep = now + WINDOW_SECONDS * 1000;
  }
}

/** A rate-limiter-flexible answer as the request scope keeps it (exported for test/local-budgets.test.ts). */
export const stateOf = (res: RateLimiterRes, limit: number): RateLimitState => ({
  limit,
  remaining: Math.max(0, res.remainingPoints),
  resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
});

export class RateLimiter {
  /** The per-key budget where it is shared (Redis, workers); undefined where localPerKey counts it. */
  private readonly perKey: RateLimiterAbstract | undefined;
  /** Set where budgets are this process's alone (no Redis, no workers): the per-key budget, counted at once. */
  private readonly localPerKey: LocalBudgets | undefined;
  private readonly authFailures: RateLimiterAbstract;
  /** A worker's own counts, for when the cluster primary does not answer. */
  private readonly ownCounts: Record<Budget, RateLimiterAbstract> | undefined;
  private readonly redis: Redis | undefined;
  private readonly options: RateLimiterOptions;

  constructor(options: RateLimiterOptions) {
    this.options = options;
    const prefix = options.keyPrefix ?? 'deployments-gateway';
    const perKey = { points: options.perMinute, duration: WINDOW_SECONDS, keyPrefix: `${prefix}:key` };
    const authFailures = { points: AUTH_FAILURES_PER_MINUTE, duration: WINDOW_SECONDS, keyPrefix: `${prefix}:auth-failure` };
    const inMemory = (settings: typeof perKey): RateLimiterAbstract => (options.acrossWorkers
      ? new RateLimiterCluster({ ...settings, timeoutMs: PRIMARY_TIMEOUT_MS })
      : new RateLimiterMemory(settings));
    this.ownCounts = options.acrossWorkers
      ? { perKey: new RateLimiterMemory(perKey), authFailures: new RateLimiterMemory(authFailures) }
      : undefined;
    if (!options.redisUrl) {
      if (options.acrossWorkers) this.perKey = inMemory(perKey);
      else this.localPerKey = new LocalBudgets(options.perMinute);
      this.authFailures = inMemory(authFailures);
      return;
    }
    // No offline queue and a short command timeout: a request never waits on a Redis that is not there.
    this.redis = new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 500, connectTimeout: 2000 });
    let warned = false;
    this.redis.on('error', (error: Error) => {
      if (!warned) options.logger?.warn({ err: error }, 'Redis unreachable; rate limits are kept in memory until it returns');
      warned = true;
    });
    this.redis.on('ready', () => { warned = false; });
    const insured = (settings: typeof perKey) => new RateLimiterRedis({
      ...settings, storeClient: this.redis, rejectIfRedisNotReady: true, insuranceLimiter: inMemory(settings),
    });
    this.perKey = insured(perKey);
    this.authFailures = insured(authFailures);
  }

  /** Resolves whether Redis answered within `timeoutMs` (always true without Redis); budgets work either way. */
  async connected(timeoutMs: number): Promise<boolean> {
    const redis = this.redis;
    if (!redis || redis.status === 'ready') return true;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), timeoutMs);
      const onReady = () => done(true);
      function done(ready: boolean) {
        clearTimeout(timer);
        redis!.off('ready', onReady);
        resolve(ready);
      }
      redis.once('ready', onReady);
    });
  }

  /** Spends from a shared budget; a worker whose primary does not answer spends from its own count instead. */
  private async spend(budget: Budget, how: 'consume' | 'penalty', key: string): Promise<RateLimiterRes> {
    try {
      // perKey is spent here only where it is shared, and then it is set (consume).
      return await this[budget]![how](key, 1);
    } catch (rejection) {
      const own = this.ownCounts?.[budget];
      if (rejection instanceof RateLimiterRes || !own) throw rejection;
      return own[how](key, 1);
    }
  }

  /**
   * Spends one request of the key's budget at once where budgets are this process's alone; throws
   * RateLimitExceeded when it is gone. Undefined where they are shared (Redis, workers): consume() spends there.
   */
  consumeAtOnce(apiKeyId: string): RateLimitState | undefined {
    return this.localPerKey?.consume(apiKeyId);
  }

  /** Spends one request of the key's budget; throws RateLimitExceeded when it is gone. */
  async consume(apiKeyId: string): Promise<RateLimitState> {
    if (this.localPerKey) return this.localPerKey.consume(apiKeyId);
    try {
      return stateOf(await this.spend('perKey', 'consume', apiKeyId), this.options.perMinute);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw new RateLimitExceeded(stateOf(rejection, this.options.perMinute), 'api-key');
      throw rejection;
    }
  }

  /**
   * Counts a failed authentication from an address; throws RateLimitExceeded once the address has failed
   * more often than allowed this minute. Only failures count, and a key that verifies is never refused for
   * its address: clients behind one proxy or NAT share an address.
   */
  async recordAuthFailure(address: string): Promise<void> {
    let spent: RateLimiterRes;
    try {
      spent = await this.spend('authFailures', 'penalty', address);
    } catch {
      return; // the store failed and so did its fallback: the 401 stands on its own
    }
    if (spent.consumedPoints > AUTH_FAILURES_PER_MINUTE) {
      throw new RateLimitExceeded(stateOf(spent, AUTH_FAILURES_PER_MINUTE), 'address');
    }
  }

  async close(): Promise<void> {
    await this.redis?.quit().catch(() => this.redis?.disconnect());
  }
}
