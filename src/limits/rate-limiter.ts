// Per-API-key request budgets (a fixed one-minute window), and a budget of failed authentications per client
// address, past which wrong keys get 429 instead of 401. In memory by default; in Redis
// when REDIS_URL is set, so that replicas share one budget. If Redis cannot answer, each replica falls back to
// its own in-memory budget rather than refusing or waving everything through.
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../observability/logger.ts';
import type { RateLimitState } from '../observability/request-scope.ts';

const WINDOW_SECONDS = 60;
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
}

const stateOf = (res: RateLimiterRes, limit: number): RateLimitState => ({
  limit,
  remaining: Math.max(0, res.remainingPoints),
  resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
});

export class RateLimiter {
  private readonly perKey: RateLimiterAbstract;
  private readonly authFailures: RateLimiterAbstract;
  private readonly redis: Redis | undefined;
  private readonly options: RateLimiterOptions;

  constructor(options: RateLimiterOptions) {
    this.options = options;
    const prefix = options.keyPrefix ?? 'deployments-gateway';
    const perKey = { points: options.perMinute, duration: WINDOW_SECONDS, keyPrefix: `${prefix}:key` };
    const authFailures = { points: AUTH_FAILURES_PER_MINUTE, duration: WINDOW_SECONDS, keyPrefix: `${prefix}:auth-failure` };
    if (!options.redisUrl) {
      this.perKey = new RateLimiterMemory(perKey);
      this.authFailures = new RateLimiterMemory(authFailures);
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
      ...settings, storeClient: this.redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(settings),
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

  /** Spends one request of the key's budget; throws RateLimitExceeded when it is gone. */
  async consume(apiKeyId: string): Promise<RateLimitState> {
    try {
      return stateOf(await this.perKey.consume(apiKeyId), this.options.perMinute);
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
      spent = await this.authFailures.penalty(address, 1);
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
