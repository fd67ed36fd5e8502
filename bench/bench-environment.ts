// Where the benchmark keeps its data: its own embedded PostgreSQL directory (never the demo's), unless
// DATABASE_URL points elsewhere. No demo tenant is loaded there.
export function benchEnvironment(): Record<string, string> {
  return {
    DATA_DIR: process.env.BENCH_DATA_DIR ?? '.data-bench',
    SEED_DEMO_DATA: 'false',
  };
}
