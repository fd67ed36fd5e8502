// Failures an operator causes and can fix (bad configuration or input, a database out of reach) are
// reported as one line; anything else is a bug and keeps its stack trace.
const EXPECTED = new Set([
  'ConfigError', 'UsageError', 'ImportError', 'ApiKeyError', 'DatabaseUnavailableError', 'EmbeddedPostgresError', 'SecretsKeyError',
]);

export function describeFailure(error: unknown): string | unknown {
  return error instanceof Error && EXPECTED.has(error.name) ? error.message : error;
}
