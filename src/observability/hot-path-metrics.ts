// The counters and histograms that every request updates (HTTP requests and their durations, GraphQL operations,
// their errors and the prepared ones), kept here rather than by prom-client's Counter and Histogram. prom-client
// validates the label names and hashes the labels object (its keys sorted) at every inc or observe, and a timer
// copies the labels once more: with the in-flight gauge, about 7% of a `{ __typename }`'s CPU profile
// (docs/performance.md#metrics-on-the-hot-path). Here a series is found by its label values, a Map per label.
// Both register in a prom-client Registry and describe themselves as prom-client's own classes do (get(): name,
// help, type, values, aggregator), so the exposition, the cluster's aggregation and every reader of get() see
// the same text and values; test/hot-path-metrics.test.ts compares them with prom-client's for the same updates.
import type { Registry } from 'prom-client';

type Labels<L extends string> = Record<L, string>;

/** One value of a series, as prom-client's get() lists it (a histogram's buckets carry their `le`). */
export interface ExportedValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
  exemplar?: null;
}

/** What get() answers: what a prom-client registry reads of a metric to expose it or hand it to the cluster. */
export interface ExportedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: ExportedValue[];
  aggregator: 'sum';
}

interface Configuration<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  registers: Registry[];
}

/** A level of the series' tree: by the value of one label, the next level, or (by the last label) the series. */
type Level<S> = Map<string, Level<S> | S>;

/** What both kinds share: the series, found by their label values in a tree and made on first use. */
abstract class HotPathMetric<L extends string, S extends { labels: Labels<L> }> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  readonly aggregator = 'sum' as const;
  /** In the order they were made, as prom-client lists them. */
  protected readonly series: S[] = [];
  readonly #tree: Level<S> = new Map();
  #unlabelled: S | undefined;

  constructor({ name, help, labelNames, registers }: Configuration<L>) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames ?? [];
    for (const registry of registers) registry.registerMetric(this as never);
  }

  protected abstract create(labels: Labels<L>): S;

  /**
   * The series of these labels. A Map per label rather than one by the values joined: a joined key was a new
   * string to hash at every update (2% of a `{ __typename }`), where the values (routes, methods, names) mostly
   * are strings whose hash V8 has kept.
   */
  protected seriesOf(labels: Labels<L>): S {
    const names = this.labelNames;
    if (names.length === 0) return (this.#unlabelled ??= this.#add(labels));
    let level = this.#tree;
    const last = names.length - 1;
    for (let index = 0; index < last; index++) {
      const value = labels[names[index]!];
      let next = level.get(value) as Level<S> | undefined;
      if (!next) level.set(value, (next = new Map()));
      level = next;
    }
    const value = labels[names[last]!];
    let series = level.get(value) as S | undefined;
    if (!series) level.set(value, (series = this.#add(labels)));
    return series;
  }

  #add(labels: Labels<L>): S {
    const own = {} as Labels<L>;
    for (const name of this.labelNames) own[name] = String(labels[name]);
    const series = this.create(own);
    this.series.push(series);
    return series;
  }
}

interface CounterSeries<L extends string> {
  labels: Labels<L>;
  value: number;
}

export class HotPathCounter<L extends string = never> extends HotPathMetric<L, CounterSeries<L>> {
  readonly type = 'counter' as const;

  constructor(configuration: Configuration<L>) {
    super(configuration);
    // Without labels, its one series is there from the start (0), as prom-client shows it.
    if (this.labelNames.length === 0) this.seriesOf({} as Labels<L>);
  }

  protected create(labels: Labels<L>): CounterSeries<L> {
    return { labels, value: 0 };
  }

  inc(labels: Labels<L> = {} as Labels<L>, value = 1): void {
    if (!(value >= 0 && Number.isFinite(value))) throw new TypeError(`A counter only goes up by a finite amount; got ${value}`);
    this.seriesOf(labels).value += value;
  }

  async get(): Promise<ExportedMetric> {
    const values = this.series.map(({ labels, value }) => ({ value, labels: { ...labels } }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

interface HistogramSeries<L extends string> {
  labels: Labels<L>;
  /** Observations per bucket (not cumulative), in the order of the upper bounds. */
  buckets: number[];
  sum: number;
  count: number;
}

export class HotPathHistogram<L extends string> extends HotPathMetric<L, HistogramSeries<L>> {
  readonly type = 'histogram' as const;
  readonly upperBounds: readonly number[];

  constructor(configuration: Configuration<L> & { buckets: readonly number[] }) {
    super(configuration);
    this.upperBounds = [...configuration.buckets].sort((a, b) => a - b);
    if (this.labelNames.length === 0) this.seriesOf({} as Labels<L>);
  }

  protected create(labels: Labels<L>): HistogramSeries<L> {
    return { labels, buckets: this.upperBounds.map(() => 0), sum: 0, count: 0 };
  }

  observe(labels: Labels<L>, value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const series = this.seriesOf(labels);
    series.sum += value;
    series.count += 1;
    // Above the last bound only +Inf (the count) holds it.
    const bounds = this.upperBounds;
    for (let index = 0; index < bounds.length; index++) {
      if (value <= bounds[index]!) {
        series.buckets[index]! += 1;
        break;
      }
    }
  }

  /** Starts timing; the function returned observes the seconds since, under `labels`, and returns them. */
  startTimer(labels: Labels<L>): () => number {
    const started = performance.now();
    return () => {
      const seconds = (performance.now() - started) / 1000;
      this.observe(labels, seconds);
      return seconds;
    };
  }

  async get(): Promise<ExportedMetric> {
    const values: ExportedValue[] = [];
    for (const { labels, buckets, sum, count } of this.series) {
      let cumulative = 0;
      // `le` first, then the series' labels, as prom-client orders them.
      this.upperBounds.forEach((bound, index) => {
        cumulative += buckets[index]!;
        values.push({ labels: { le: bound, ...labels }, value: cumulative, metricName: `${this.name}_bucket`, exemplar: null });
      });
      values.push(
        { labels: { le: '+Inf', ...labels }, value: count, metricName: `${this.name}_bucket`, exemplar: null },
        { labels: { ...labels }, value: sum, metricName: `${this.name}_sum` },
        { labels: { ...labels }, value: count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}
