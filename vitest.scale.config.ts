// `npm run test:scale`: the tests that run the service with real infrastructure from system packages
// (PgBouncer). Same set-up as `npm test` (one PostgreSQL for the run, a database per test file).
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

export default defineConfig({
  ...base,
  test: { ...base.test, include: ['test/scale/**/*.test.ts'], exclude: [], testTimeout: 60_000 },
});
