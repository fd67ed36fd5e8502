// Stopping without dropping a request: report not-ready (optionally still answering for a while, so that a
// load balancer moves traffic away first), stop accepting connections, complete the open subscription streams
// (clients see a `complete` event and subscribe again elsewhere, instead of waiting for the grace period to
// cut them off), let the requests in flight finish (each answer closes its keep-alive connection), and cut off
// only what outlives the grace period.
import type { Server } from 'node:http';
import type { Logger } from '../observability/logger.ts';
import type { InFlightRequests } from './in-flight-requests.ts';

export interface DrainTimes {
  /** Still accepting (and answering with Connection: close) after the signal. */
  delayMs: number;
  /** Then waiting for requests in flight. */
  graceMs: number;
}

/** What holds requests open until told to end: the subscription streams. */
export interface Streams {
  endAll(): void;
}

export async function drainServer(
  server: Server, inFlight: InFlightRequests, { delayMs, graceMs }: DrainTimes, logger: Logger, streams?: Streams,
): Promise<void> {
  inFlight.draining = true;
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  streams?.endAll();
  // Keep-alive connections with no request on them would otherwise hold `close` open until they time out.
  server.closeIdleConnections();
  const settled = await inFlight.settled(graceMs);
  if (!settled) {
    logger.warn({ inFlight: inFlight.size, graceMs }, 'grace period over: closing connections with requests still in flight');
    server.closeAllConnections();
  }
  // Connections that were between requests while the last ones finished.
  server.closeIdleConnections();
  await closed;
}
