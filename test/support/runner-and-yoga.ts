// Differential tests of the operation runner (src/runner): the same service started twice, once with the runner
// (the default) and once with Yoga serving every request (AppOptions.runner false, the reference), and what a
// client sees and the services count compared between the two.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { AppOptions } from '../../src/app.ts';
import type { AppOrm } from '../../src/db/orm-config.ts';
import { RateLimiter } from '../../src/limits/rate-limiter.ts';
import type { SecretCipher } from '../../src/modules/secrets/secret-cipher.ts';
import { startApp, type RunningApp } from './app-server.ts';
import type { RawResponse } from './raw-http.ts';

export interface ServicePairs {
  /** The service with the runner, and the same service with Yoga serving everything, each with its own budgets. */
  pair(orm: AppOrm, perMinute?: number, options?: AppOptions): Promise<{ runner: RunningApp; yoga: RunningApp }>;
  /** Stops every service started (afterAll). */
  close(): Promise<void>;
}

export function servicePairs(cipher: () => SecretCipher): ServicePairs {
  const running: Array<{ app: RunningApp; limiter: RateLimiter }> = [];
  const start = async (orm: AppOrm, runner: boolean, perMinute: number, options: AppOptions) => {
    const limiter = new RateLimiter({ perMinute, keyPrefix: `test-${randomUUID()}` });
    const app = await startApp(orm, cipher(), undefined, { rateLimiter: limiter, options: { ...options, runner } });
    running.push({ app, limiter });
    return app;
  };
  return {
    pair: async (orm, perMinute = 1_000_000, options = {}) =>
      ({ runner: await start(orm, true, perMinute, options), yoga: await start(orm, false, perMinute, options) }),
    close: async () => {
      for (const { app, limiter } of running.splice(0)) {
        await app.close();
        await limiter.close();
      }
    },
  };
}

/**
 * What a client sees, without what differs between any two answers: the time, the request id, and the seconds
 * until the rate-limit window resets, which tick between two requests sent a moment apart (compared below); and
 * the validators of a read, which only the runner gives (compared below).
 */
export const seen = ({ status, headers: { date: _date, 'x-request-id': _id, 'ratelimit-reset': _reset, etag: _etag, 'cache-control': _cache, vary: _vary, ...headers }, body }: RawResponse) =>
  ({ status, headers, body: body.toString('base64') });

/**
 * The same answer from both services; the reset seconds (present on both, or on neither) at most one apart. The
 * runner's tagged answers (docs/decisions.md#conditional-requests) carry every validator, its Vary names all
 * Yoga's does, and a deployment's tag names the version Yoga's did.
 */
export function expectSameAnswer(fromRunner: RawResponse, fromYoga: RawResponse, label?: string) {
  expect(seen(fromRunner), label).toEqual(seen(fromYoga));
  const { etag, vary, 'cache-control': cacheControl } = fromRunner.headers;
  if (etag === undefined || fromRunner.status !== 200) {
    expect({ etag, vary, cacheControl }, label).toEqual({ etag: fromYoga.headers.etag, vary: fromYoga.headers.vary, cacheControl: fromYoga.headers['cache-control'] });
  } else {
    expect(etag, label).toMatch(/^"(\d+(-masked)?-)?[0-9a-f]{24}"$/);
    // A deployment's tag (Yoga gives the record's own, identity-coded): the same version and mask, the hash of the
    // coding the runner sent the answer in (the same tag for identity).
    const upToHash = (tag: string) => tag.slice(0, tag.lastIndexOf('-'));
    if (fromYoga.headers.etag !== undefined) expect(upToHash(etag), label).toBe(upToHash(String(fromYoga.headers.etag)));
    expect(cacheControl, label).toBe('private, no-cache');
    for (const name of String(fromYoga.headers.vary ?? '').split(',').filter(Boolean)) expect(String(vary).toLowerCase(), label).toContain(name.trim().toLowerCase());
  }
  const [runnerReset, yogaReset] = [fromRunner, fromYoga].map((answer) => answer.headers['ratelimit-reset']);
  expect(runnerReset === undefined, `${label}: ratelimit-reset on one answer only`).toBe(yogaReset === undefined);
  if (runnerReset !== undefined) expect(Math.abs(Number(runnerReset) - Number(yogaReset)), `${label}: ratelimit-reset`).toBeLessThanOrEqual(1);
}

/**
 * What the two services counted: the same requests, errors, refusals and timed operations (by name and type),
 * whichever served them.
 */
export async function expectSameCounts(runner: RunningApp, yoga: RunningApp) {
  for (const counter of ['httpRequests', 'graphqlErrors', 'rateLimited', 'graphqlOperations'] as const) {
    const counts = async ({ app }: RunningApp) => (await app.metrics[counter].get()).values
      // Of a histogram, how many it observed: the durations differ from one service to the other.
      .filter((value) => !/_(bucket|sum)$/.test((value as { metricName?: string }).metricName ?? ''))
      .map(({ labels, value }) => `${JSON.stringify(labels)} ${value}`).toSorted();
    expect(await counts(runner), counter).toEqual(await counts(yoga));
  }
}

/** Operations a service's operation runner ran (src/runner/run-operation.ts). */
export const runnerRuns = async ({ app }: RunningApp) => (await app.metrics.runnerOperations.get()).values[0]?.value ?? 0;
