// The counters and histograms every request updates are the service's own (src/observability/hot-path-metrics.ts),
// not prom-client's. What a Prometheus server or a dashboard would notice if they drifted from prom-client's: a
// /metrics text that differs (a bucket counted in the wrong place, a label order, a missing series), or a
// cluster's aggregated /metrics that differs. Each test makes the same updates to prom-client's class and to
// ours, in registries of their own, and compares what the registries make of them.
import { describe, expect, it, vi } from 'vitest';
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import { HotPathCounter, HotPathHistogram } from '../src/observability/hot-path-metrics.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Values on and around every bucket bound, beyond the last one, and zero. */
const OBSERVED = [0, 0.001, 0.005, 0.0050001, 0.01, 0.02, 0.025, 0.3, 0.5, 0.9999, 1, 2.5, 4, 5, 10, 10.5, 120];

/** The same metrics, made by prom-client's classes and by ours, each in a registry of its own. */
function bothKinds() {
  const make = (hot: boolean) => {
    const registry = new Registry();
    const registers = [registry];
    const duration = { name: 'http_request_duration_seconds', help: 'Time.', labelNames: ['route', 'method'] as const, buckets: BUCKETS, registers };
    const requests = { name: 'http_requests_total', help: 'Requests, "quoted" and \\ escaped.', labelNames: ['route', 'method', 'status'] as const, registers };
    const prepared = { name: 'prepared_total', help: 'Without labels.', registers };
    return {
      registry,
      duration: hot ? new HotPathHistogram(duration) : new Histogram(duration),
      requests: hot ? new HotPathCounter(requests) : new Counter(requests),
      prepared: hot ? new HotPathCounter(prepared) : new Counter(prepared),
    };
  };
  return { prom: make(false), hot: make(true) };
}

/** getMetricsAsJSON without what JSON would drop anyway (prom-client's undefined exemplars). */
const asJSON = async (registry: Registry) => JSON.parse(JSON.stringify(await registry.getMetricsAsJSON()));

describe('metrics on the hot path', () => {
  it('expose the same /metrics text and JSON as prom-client for the same updates', async () => {
    const { prom, hot } = bothKinds();
    // Before any update: a counter without labels shows 0, one with labels shows nothing.
    expect(await hot.registry.metrics()).toBe(await prom.registry.metrics());
    for (const kind of [prom, hot]) {
      OBSERVED.forEach((seconds, index) => {
        const route = index % 3 === 0 ? '/graphql' : '/v2/deployments/{deployment_id}';
        kind.duration.observe({ route, method: index % 2 ? 'GET' : 'POST' }, seconds);
        kind.requests.inc({ route, method: 'GET', status: String(200 + (index % 2) * 229) });
      });
      kind.requests.inc({ route: 'a "quoted"\nroute\\', method: 'GET', status: '200' }, 3);
      kind.prepared.inc();
      kind.prepared.inc();
    }
    const text = await hot.registry.metrics();
    expect(text).toBe(await prom.registry.metrics());
    // The comparison is not empty: the buckets and escaped labels are there.
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.005",route="/graphql",method="POST"} 1');
    expect(text).toContain('http_request_duration_seconds_bucket{le="+Inf",route="/graphql",method="POST"}');
    expect(text).toContain('http_requests_total{route="a \\"quoted\\"\\nroute\\\\",method="GET",status="200"} 3');
    expect(text).toContain('prepared_total 2');
    expect(await asJSON(hot.registry)).toEqual(await asJSON(prom.registry));
  });

  it('aggregate across workers as prom-client does', async () => {
    const workers = [bothKinds(), bothKinds()];
    workers.forEach((worker, n) => {
      for (const kind of [worker.prom, worker.hot]) {
        kind.duration.observe({ route: '/graphql', method: 'POST' }, 0.002 * (n + 1));
        kind.duration.observe({ route: '/graphql', method: 'POST' }, 3);
        kind.requests.inc({ route: '/graphql', method: 'POST', status: '200' }, n + 1);
      }
    });
    const aggregated = async (kind: 'prom' | 'hot') => AggregatorRegistry
      .aggregate(await Promise.all(workers.map((worker) => worker[kind].registry.getMetricsAsJSON()))).metrics();
    const text = await aggregated('hot');
    expect(text).toBe(await aggregated('prom'));
    expect(text).toContain('http_request_duration_seconds_count{route="/graphql",method="POST"} 4');
    expect(text).toContain('http_requests_total{route="/graphql",method="POST",status="200"} 3');
  });

  it('times like prom-client: the seconds since the timer started, observed under its labels', async () => {
    const { hot } = bothKinds();
    // On a fake clock: the seconds are exactly the time that passed, not a window around a sleep.
    vi.useFakeTimers({ toFake: ['performance'] });
    let seconds: number;
    try {
      const stop = hot.duration.startTimer({ route: '/graphql', method: 'POST' });
      vi.advanceTimersByTime(30);
      seconds = stop();
    } finally {
      vi.useRealTimers();
    }
    expect(seconds).toBeCloseTo(0.03, 9);
    const values = (await hot.duration.get()).values;
    expect(values.find((value) => value.metricName === 'http_request_duration_seconds_sum')?.value).toBe(seconds);
    expect(values.find((value) => value.metricName === 'http_request_duration_seconds_count')?.value).toBe(1);
  });

  it('refuse what prom-client refuses: a counter going down, a value that is not a number', () => {
    const { hot } = bothKinds();
    expect(() => hot.requests.inc({ route: '/graphql', method: 'GET', status: '200' }, -1)).toThrow(TypeError);
    expect(() => hot.duration.observe({ route: '/graphql', method: 'GET' }, Number.NaN)).toThrow(TypeError);
  });
});
