import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Node resolves `graphql` to its CommonJS entry (the package has no "exports" map) while Vite would pick
    // its "module" entry: two copies of graphql break `instanceof GraphQLError`. Use Node's choice.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    // TEST_EXIT_CODE_PROBE=1 runs only the deliberately failing probe (see .ci/run), never part of the suite.
    include: process.env.TEST_EXIT_CODE_PROBE === '1' ? ['test/exit-code-probe/*.probe.ts'] : ['test/**/*.test.ts'],
    // test/scale/ needs system packages (pgbouncer): `npm run test:scale` (vitest.scale.config.ts) runs it.
    exclude: [...configDefaults.exclude, 'test/scale/**'],
    // One PostgreSQL for the run (embedded, or TEST_DATABASE_URL); every test file creates its own database.
    globalSetup: ['test/support/global-postgres.ts'],
    // The service's V8 settings (JSON.stringify's fast path among them), in every test process: what the tests
    // check is what production runs.
    setupFiles: ['src/v8-flags.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
