// Stopping without dropping a request: report not-ready, stop accepting connections, let the requests in
// flight finish (each answer closes its keep-alive connection), and cut off only what outlives the grace period.
import type { Server } from 'node:http';
import type { Logger } from '../observability/logger.ts';
import type { InFlightRequests } from './in-flight-requests.ts';

export async function drainServer(server: Server, inFlight: InFlightRequests, graceMs: number, logger: Logger): Promise<void> {
  inFlight.draining = true;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
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
