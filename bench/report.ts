// The benchmark table, as printed and as the README shows it.
export interface ScenarioResult {
  scenario: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  sqlStatements: number;
  peakRssMb: number;
  ofCeiling: number;
}

export function formatTable(results: ScenarioResult[], machine: string, settings: string): string {
  const header = '| Scenario | req/s | p50 ms | p99 ms | SQL/req | peak RSS MB | of ceiling |';
  const rule = '|---|---:|---:|---:|---:|---:|---:|';
  const rows = results.map((r) => `| ${r.scenario} | ${r.requestsPerSecond.toFixed(0)} | ${r.p50Ms} | ${r.p99Ms} | ${r.sqlStatements} | ${r.peakRssMb.toFixed(0)} | ${(r.ofCeiling * 100).toFixed(0)}% |`);
  return [`Machine: ${machine}`, `Settings: ${settings}`, '', header, rule, ...rows].join('\n');
}
