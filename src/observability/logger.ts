// Structured JSON logs (pino). Every line written while serving a request carries its request id. API keys,
// authorization headers and secret values are redacted where REDACTED_PATHS names them in a logged object (at
// its top, or one level down: an error's own fields).
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config.ts';
import { currentRequestScope } from './request-scope.ts';
import { isDatabaseUnavailable } from '../db/connection-loss.ts';

const UNAVAILABLE_LOG_INTERVAL_MS = 5000;

export type { Logger } from 'pino';

// Nothing here logs these on purpose; the paths catch a header map or key that a future log call passes along
// (test/observability.test.ts gives a logger each of them).
const REDACTED_PATHS = [
  'headers["x-api-key"]', 'headers.authorization', 'headers.cookie',
  'req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie',
  'apiKey', '*.apiKey', 'secretValue', '*.secretValue',
];

// Lines are written to stdout in batches of at least this many bytes, or within STDOUT_FLUSH_MS of being logged.
const STDOUT_BATCH_BYTES = 16 * 1024;
const STDOUT_FLUSH_MS = 200;

/**
 * The service's stdout, written in batches. One write per line cost more than formatting the line: under load,
 * a write (on libuv's thread pool) and its callback per request (docs/performance.md#log-lines-in-batches). A
 * line waits at most STDOUT_FLUSH_MS; on exit (a crash included) what is left is written synchronously, and
 * `logger.flush()` writes it at once. A process killed outright (SIGKILL) loses at most the lines of that
 * interval.
 *
 * The lines of a batch are kept here and handed to pino's destination joined, one string per batch: the
 * destination measures the UTF-8 length of its last buffer at every write it is given, a buffer that grows
 * with the batch (docs/performance.md#log-lines-in-batches).
 */
export function batchedStdout(): DestinationStream & { flush(cb?: (error?: Error) => void): void; flushSync(): void } {
  // Through pino.destination, so that it stops writing (instead of throwing) when the reading end of a pipe has
  // gone; it writes each batch as it is handed over.
  const stdout = pino.destination({ dest: 1, sync: false });
  let lines: string[] = [];
  let length = 0;
  let timer: NodeJS.Timeout | undefined;
  const handOver = () => {
    clearTimeout(timer);
    timer = undefined;
    if (lines.length === 0) return;
    const batch = lines.join('');
    lines = [];
    length = 0;
    stdout.write(batch);
  };
  // On exit nothing asynchronous runs any more: what is left is written synchronously.
  process.once('exit', () => {
    handOver();
    stdout.flushSync();
  });
  return {
    write(line: string) {
      lines.push(line);
      // Characters, not bytes: a threshold needs no more.
      length += line.length;
      if (length >= STDOUT_BATCH_BYTES) handOver();
      else timer ??= setTimeout(handOver, STDOUT_FLUSH_MS).unref();
    },
    flush: (cb) => {
      handOver();
      stdout.flush(cb);
    },
    flushSync: () => {
      handOver();
      stdout.flushSync();
    },
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

/** What the access line says of a request, in the order it says it; an undefined field is left out. */
export interface AccessLine {
  requestId: string;
  method: string;
  path: string | undefined;
  route: string;
  status: number;
  durationMs: number;
  operation?: string;
  documentId?: string;
  tenantId?: string;
  aborted?: boolean;
}

const field = (name: string, value: string | undefined) => (value === undefined ? '' : `,"${name}":${JSON.stringify(value)}`);

/**
 * The access log: one line per request, at info, written to the logger's destination as pino writes a line
 * (level, time, the logger's bindings, the fields in order, msg "request"; strings escaped as JSON). It is
 * formatted here rather than by pino: pino's generic path (the mixin, each key of an object typed one by one,
 * the level and time formatters) cost about 9 µs of a 134 µs `{ __typename }`
 * (docs/performance.md#the-access-line). Its fields are the ones the request handler picks (ids, method, a path
 * whose query string shows only what names the request (loggable-path.ts), route, status, timing, operation,
 * tenant): no header map, key or secret value, so no redaction path applies. test/observability.test.ts checks it against the
 * line pino writes for the same fields.
 */
export function accessLog(logger: Logger): (line: AccessLine) => void {
  const internals = logger as unknown as Record<symbol, unknown>;
  const destination = internals[pino.symbols.streamSym] as DestinationStream;
  return (line) => {
    if (!logger.isLevelEnabled('info')) return;
    // The logger's bindings (a worker's `"worker":N`), already serialized by pino, come before the fields.
    const bindings = internals[pino.symbols.chindingsSym] as string;
    destination.write(`{"level":"info","time":"${new Date().toISOString()}"${bindings}${field('requestId', line.requestId)}${field('method', line.method)}`
      + `${field('path', line.path)}${field('route', line.route)},"status":${line.status},"durationMs":${line.durationMs}`
      + `${field('operation', line.operation)}${field('documentId', line.documentId)}${field('tenantId', line.tenantId)}`
      + `${line.aborted ? ',"aborted":true' : ''},"msg":"request"}\n`);
  };
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
