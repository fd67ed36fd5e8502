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

// Lines are written to stdout in batches of at least this many bytes, or within STDOUT_FLUSH_MS of being logged.
const STDOUT_BATCH_BYTES = 4096;
const STDOUT_FLUSH_MS = 200;

/**
 * The service's stdout, written in batches. One write per line cost more than formatting the line: under load,
 * a write (on libuv's thread pool) and its callback per request (docs/performance.md#log-lines-in-batches). A
 * line waits at most STDOUT_FLUSH_MS; on exit (a crash included) pino's own exit handler writes what is left
 * synchronously, and `logger.flush()` writes it at once. A process killed outright (SIGKILL) loses at most the
 * lines of that interval.
 */
export function batchedStdout(): DestinationStream & { flush(cb?: (error?: Error) => void): void; flushSync(): void } {
  // Through pino.destination, so that pino registers it for the synchronous write on exit, and stops writing
  // (instead of throwing) when the reading end of a pipe has gone.
  const stdout = pino.destination({ dest: 1, sync: false, minLength: STDOUT_BATCH_BYTES });
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    stdout.flush();
  };
  return {
    write(line: string) {
      stdout.write(line);
      timer ??= setTimeout(flush, STDOUT_FLUSH_MS).unref();
    },
    flush: (cb) => stdout.flush(cb),
    flushSync: () => stdout.flushSync(),
  };
}

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
 * The access log: one line per request, of fields the request handler picks (ids, method, a path whose
 * credential-like parameters are already replaced, route, status, timing, operation, tenant). It carries no
 * header map, key or secret value, so the redaction paths (half the cost of a line: their wildcards visit
 * every field) have nothing to find in it; every other line keeps them.
 */
export function accessLogger(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [] } });
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
