// Shared wrapper for the command-line tools: expected failures (bad input, configuration, an unreachable
// database) print one line and exit 1; anything else is a bug and prints its stack.
export class UsageError extends Error {
  override name = 'UsageError';
}

const EXPECTED = new Set(['ConfigError', 'UsageError', 'ImportError', 'DatabaseUnavailableError', 'EmbeddedPostgresError']);

export async function runCli(main: (args: string[]) => Promise<void>): Promise<void> {
  try {
    await main(process.argv.slice(2));
    process.exit(0);
  } catch (error) {
    const err = error as Error;
    console.error(EXPECTED.has(err.name) ? `error: ${err.message}` : err);
    process.exit(1);
  }
}
