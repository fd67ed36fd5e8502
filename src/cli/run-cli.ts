// Shared wrapper for the command-line tools (see expected-errors.ts for what prints as one line).
import { describeFailure } from '../expected-errors.ts';

export class UsageError extends Error {
  override name = 'UsageError';
}

export async function runCli(main: (args: string[]) => Promise<void>): Promise<void> {
  try {
    await main(process.argv.slice(2));
    process.exit(0);
  } catch (error) {
    const failure = describeFailure(error);
    console.error(typeof failure === 'string' ? `error: ${failure}` : failure);
    process.exit(1);
  }
}
