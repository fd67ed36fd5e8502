// Not part of the suite: `.ci/run` runs this file alone (TEST_EXIT_CODE_PROBE=1 npm test) to prove that the
// README's test command exits non-zero when a test fails, with the run's PostgreSQL (embedded or
// TEST_DATABASE_URL) started exactly as in a normal run. Once, that run exited 0 whatever failed.
import pg from 'pg';
import { expect, inject, it } from 'vitest';

it('reaches the run\'s PostgreSQL (so the probe runs the same set-up as the suite)', async () => {
  const client = new pg.Client({ connectionString: inject('postgresMaintenanceUrl') });
  await client.connect();
  try {
    expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
  } finally {
    await client.end();
  }
});

it('fails on purpose: npm test must exit non-zero', () => {
  expect('this probe test').toBe('failing, on purpose');
});
