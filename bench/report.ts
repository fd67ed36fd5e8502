// The benchmark tables, as printed and as docs/performance.md shows them.
export interface ScenarioResult {
  scenario: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  sqlStatements: number;
  /** Messages of statements sent to PostgreSQL (round trips), BEGIN and COMMIT included; absent for a ceiling. */
  roundTrips?: number;
  /** Bytes read from PostgreSQL for one request (the pool's sockets). */
  bytesFromPostgres: number;
  /** The response body as sent: compressed for the scenarios that ask for it. */
  responseBytes: number;
  peakRssMb: number;
  /** CPU of the process that answered (the service, or the ceiling) per request: steadier than req/s on a busy machine. */
  cpuMsPerRequest: number;
  /** The ceiling scenario it is compared with, and the ratio of their throughputs. */
  ceiling: string;
  ofCeiling: number;
  /** A planned scenario's other requests (the writes before its reads), whose latencies p50Ms and p99Ms leave out. */
  otherP50Ms?: number;
  otherP99Ms?: number;
  /** Each round's req/s and CPU per request, in the order run: two scenarios compared round by round, side by side. */
  rounds?: { requestsPerSecond: number; cpuMsPerRequest: number }[];
}

/** `cpuMsPerRequest`: the service's CPU (primary and workers) per request. */
export interface WorkersSample { requestsPerSecond: number; p99Ms: number; cpuMsPerRequest: number; failed: number }

export interface WorkersResult {
  scenario: string;
  workers: number;
  one: WorkersSample;
  many: WorkersSample;
}

export interface ScalingResult {
  scenario: string;
  byConnections: { connections: number; requestsPerSecond: number; p50Ms: number; p99Ms: number; failed: number }[];
}

const kb = (bytes: number) => (bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} B`);

export function formatTable(results: ScenarioResult[], machine: string, settings: string): string {
  const header = '| Scenario | req/s | p50 ms | p99 ms | SQL/req (round trips) | read from PG/req | response on the wire | peak RSS MB | of its ceiling |';
  const rule = '|---|---:|---:|---:|---:|---:|---:|---:|---:|';
  const rows = results.map((r) => `| ${r.scenario} | ${r.requestsPerSecond.toFixed(0)} | ${r.p50Ms} | ${r.p99Ms} | ${r.sqlStatements}${r.roundTrips === undefined ? '' : ` (${r.roundTrips})`} | ${kb(r.bytesFromPostgres)} | ${kb(r.responseBytes)} | `
    + `${r.peakRssMb.toFixed(0)} | ${r.ceiling === r.scenario ? '(ceiling)' : `${(r.ofCeiling * 100).toFixed(0)}% of ${r.ceiling.replace(/^(ceiling|floor): /, '')}`} |`);
  return [`Machine: ${machine}`, `Settings: ${settings}`, '', header, rule, ...rows].join('\n');
}

export function formatScalingTable(results: ScalingResult[]): string {
  const counts = results[0]?.byConnections.map((c) => c.connections) ?? [];
  const header = `| Scenario | ${counts.map((c) => `${c} conn: req/s (p99 ms)`).join(' | ')} | failed |`;
  const rule = `|---|${counts.map(() => '---:').join('|')}|---:|`;
  const rows = results.map((r) => `| ${r.scenario} | ${r.byConnections.map((c) => `${c.requestsPerSecond.toFixed(0)} (${c.p99Ms})`).join(' | ')} | `
    + `${r.byConnections.reduce((sum, c) => sum + c.failed, 0)} |`);
  return ['Connection scaling (same interleaving, median of rounds):', '', header, rule, ...rows].join('\n');
}

export function formatWorkersTable(results: WorkersResult[], connections: number): string {
  const workers = results[0]?.workers ?? 0;
  const header = `| Scenario | 1 worker: req/s (p99 ms) | ${workers} workers: req/s (p99 ms) | ${workers} workers / 1 | service CPU ms/req, 1 and ${workers} | failed |`;
  const rows = results.map((r) => `| ${r.scenario} | ${r.one.requestsPerSecond.toFixed(0)} (${r.one.p99Ms}) | ${r.many.requestsPerSecond.toFixed(0)} (${r.many.p99Ms}) | `
    + `${(r.many.requestsPerSecond / r.one.requestsPerSecond).toFixed(2)}× | ${r.one.cpuMsPerRequest.toFixed(1)}, ${r.many.cpuMsPerRequest.toFixed(1)} | ${r.one.failed + r.many.failed} |`);
  return [`Workers (${connections} connections, same interleaving, median of rounds):`, '', header, '|---|---:|---:|---:|---:|---:|', ...rows].join('\n');
}

/**
 * The conditional requests (bench/conditional-scenarios.ts) against the page they revalidate: issue 44 asks
 * 304s at ten times the page's rate at least, and a page changed by a write no slower than the page.
 */
export function formatConditionalTable(results: ScenarioResult[], names: string[]): string | undefined {
  const rows = results.filter((r) => names.includes(r.scenario)).map((r) => {
    const page = results.find((p) => p.scenario === r.ceiling);
    const ratio = page ? `${(r.requestsPerSecond / page.requestsPerSecond).toFixed(2)}×` : '–';
    const pageCpu = page ? page.cpuMsPerRequest.toFixed(2) : '–';
    const write = r.otherP50Ms === undefined ? '–' : `${r.otherP50Ms} (${r.otherP99Ms})`;
    const latency = page ? `${(r.p50Ms / page.p50Ms).toFixed(2)}×` : '–';
    return `| ${r.scenario} | ${r.requestsPerSecond.toFixed(0)} | ${r.p50Ms} (${r.p99Ms}) | ${write} | ${r.cpuMsPerRequest.toFixed(2)} (${pageCpu}) | ${ratio} | ${latency} |`;
  });
  if (!rows.length) return undefined;
  // A changed page's connection waits for its write before each read: its reads/s are pairs/s, and its CPU per
  // read includes the write's; its read's latency is the read's alone.
  const header = '| Scenario | reads/s | read p50 ms (p99) | its write p50 ms (p99) | service CPU ms/read, with its write (the page\'s) | reads/s ÷ the page\'s | read p50 ÷ the page\'s |';
  return ['Conditional requests, against the page served as usual (target: 304s ≥ 10× its reads/s; a changed page no slower):', '', header,
    '|---|---:|---:|---:|---:|---:|---:|', ...rows].join('\n');
}
