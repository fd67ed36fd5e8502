// Shared wrapper for the command-line tools: expected failures print one line and exit 1; nothing else
// prints a stack trace unless DEBUG is set.
export class UsageError extends Error {
  override name = 'UsageError';
}

export async function runCli(main: (args: string[]) => Promise<void>): Promise<void> {
  try {
    await main(process.argv.slice(2));
    process.exit(0);
  } catch (error) {
    const err = error as Error;
    const expected = ['ConfigError', 'UsageError', 'ImportError', 'DatabaseUnavailableError', 'EmbeddedPostgresError'].includes(err.name);
    console.error(expected || !process.env.DEBUG ? `error: ${err.message}` : err);
    process.exit(1);
  }
}
