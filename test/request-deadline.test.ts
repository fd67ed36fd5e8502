// The bound on how long a request may take to arrive (slowloris), kept per request by the request handler now
// that Node's server-wide requestTimeout is off (it would cut off an archive's upload after 30 s): a request
// whose body has not arrived by the deadline is answered 408 and its connection closed, as Node did; a request
// that has arrived may take as long as it needs to be answered; an object upload has a deadline of its own.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestHandler, type ObjectRequests } from '../src/http/request-handler.ts';
import { InFlightRequests } from '../src/http/in-flight-requests.ts';
import { createLogger } from '../src/observability/logger.ts';
import { Metrics } from '../src/observability/metrics.ts';

const DEADLINE_MS = 300;

/** Reads the whole body, then answers with its length after `delayMs`. */
async function answerAfterBody(req: IncomingMessage, res: import('node:http').ServerResponse, delayMs = 0): Promise<void> {
  let length = 0;
  for await (const chunk of req) length += (chunk as Buffer).length;
  await sleep(delayMs);
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(String(length));
}

const objects: ObjectRequests = {
  route: '/objects/{object_path}',
  owns: (url) => url.startsWith('/objects/'),
  deadlineOf: (method) => (method === 'PUT' ? 5_000 : undefined),
  serve: (req, res) => answerAfterBody(req, res),
};

let server: Server;
let port: number;
beforeAll(async () => {
  const handler = createRequestHandler({
    yoga: (req, res) => answerAfterBody(req, res, req.url === '/slow' ? 2 * DEADLINE_MS : 0),
    logger: createLogger('silent'), metrics: new Metrics(), maxBodyBytes: 100_000, graphqlEndpoint: '/graphql',
    inFlight: new InFlightRequests(), objects, requestDeadlineMs: DEADLINE_MS,
  });
  server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => {
  server.closeAllConnections();
  server.close(resolve);
}));

/** Sends `chunks` one every `everyMs`, announcing `declared` bytes; the answer's status and body, or 'closed'. */
function trickle(method: string, path: string, declared: number, chunks: number, everyMs: number): Promise<{ status: number; body: string } | 'closed'> {
  return new Promise((resolve) => {
    const client = request({ host: '127.0.0.1', port, method, path, headers: { 'content-length': String(declared) } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    client.on('error', () => resolve('closed'));
    void (async () => {
      for (let i = 0; i < chunks && !client.destroyed; i++) {
        client.write(Buffer.alloc(declared / chunks));
        await sleep(everyMs);
      }
      if (!client.destroyed) client.end();
    })();
  });
}

describe('the request deadline', () => {
  it('answers 408 to a request whose body has not arrived by then, and closes its connection', async () => {
    // The whole body would be in after 10 × DEADLINE_MS / 3 and answered 200: a 408 means the deadline came
    // first, whatever the machine's speed.
    const answer = await trickle('POST', '/graphql', 100, 10, DEADLINE_MS / 3);
    expect(answer).toEqual({ status: 408, body: '{"detail":"Request Timeout"}' });
  });

  it('lets a request that has arrived take longer to be answered', async () => {
    expect(await trickle('POST', '/slow', 10, 1, 0)).toEqual({ status: 200, body: '10' });
  });

  it('gives an object upload its own, longer deadline', async () => {
    expect(await trickle('PUT', '/objects/sources/a.tar.gz', 100, 10, DEADLINE_MS / 3)).toEqual({ status: 200, body: '100' });
  });
});
