// Structured JSON logs (pino). Every line written while serving a request carries its request id. API keys,
// authorization headers and secret values are redacted wherever they appear in a logged object.
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config.ts';
import { currentRequestScope } from './request-scope.ts';
import { isDatabaseUnavailable } from '../db/connection-loss.ts';

const UNAVAILABLE_LOG_INTERVAL_MS = 5000;

export type { Logger } from 'pino';

// Nothing here logs these on purpose; the paths catch a header map or key that a future log call passes along.
const REDACTED_PATHS = [
  'headers["x-api-key"]', 'headers.authorization', 'headers.cookie',
  'req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie',
  'apiKey', '*.apiKey', 'secretValue', '*.secretValue',
];

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      mixin: () => {
        const scope = currentRequestScope();
        return scope ? { requestId: scope.requestId } : {};
      },
    },
    destination,
  );
}

/**
 * Yoga's logger interface on top of pino (Yoga logs unexpected errors through it). A database that cannot be
 * reached fails every request at once: that is one warning per interval with a count, not a stack per request.
 */
export function yogaLogger(logger: Logger) {
  let unavailableSince = 0;
  let suppressed = 0;
  const reportUnavailable = (error: Error) => {
    const now = Date.now();
    if (now - unavailableSince < UNAVAILABLE_LOG_INTERVAL_MS) {
      suppressed++;
      return;
    }
    logger.warn({ reason: error.message, sameSinceLastWarning: suppressed }, 'database unavailable: answering 503');
    unavailableSince = now;
    suppressed = 0;
  };
  const forward = (method: 'debug' | 'info' | 'warn' | 'error') => (...args: unknown[]) => {
    const [first, ...rest] = args;
    const error = args.find((arg) => arg instanceof Error);
    if (error instanceof Error && isDatabaseUnavailable(error)) return reportUnavailable(error);
    const message = typeof first === 'string' ? first : error instanceof Error ? error.message : 'yoga';
    logger[method]({ ...(error ? { err: error } : {}), ...(rest.length && !error ? { details: rest } : {}) }, message);
  };
  return { debug: forward('debug'), info: forward('info'), warn: forward('warn'), error: forward('error') };
}
