// NodeRequestHeaders (src/http/node-request-headers.ts) reads node:http's own headers for the operation runner, in
// place of the Fetch API Request that Yoga's node adapter makes of the same request. Authentication, the media
// type, CORS and compression read the request through it, so it must answer every `get` as that Request's
// headers do: the same requests, sent as raw bytes (repeated headers, names in any case, empty values, names
// node:http treats specially), read both ways for present and absent names in every case.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import * as fetchAPI from '@whatwg-node/fetch';
import { normalizeNodeRequest } from '@whatwg-node/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeRequestHeaders } from '../src/http/node-request-headers.ts';

/** Header lines of each request, as a client would write them. */
const REQUESTS: string[][] = [
  ['Host: localhost', 'X-Api-Key: dmk_abc', 'Accept: application/json'],
  ['host: localhost', 'AUTHORIZATION: Bearer  dmk_abc ', 'x-tenant-id: 00000000-0000-4000-8000-000000000000'],
  // Repeated: node:http joins most with ", ", keeps the first of a few (Host, Content-Type, Authorization...),
  // joins Cookie with "; ".
  ['Host: localhost', 'Accept: application/json', 'Accept: text/html', 'X-Custom: a', 'x-custom: b', 'Cookie: a=1', 'Cookie: b=2'],
  ['Host: localhost', 'Content-Type: application/json', 'content-type: text/plain', 'Authorization: one', 'Authorization: two'],
  ['Host: localhost', 'Accept-Encoding: gzip, br', 'Accept-Encoding: zstd', 'Origin: https://app.example.com', 'Origin: https://other.example.com'],
  ['Host: localhost', 'X-Empty:', 'Accept:', 'X-Request-Id: abc', 'X-Request-Id: def'],
  ['Host: localhost', 'Set-Cookie: a=1', 'Set-Cookie: b=2', 'Transfer-Encoding: chunked'],
];

/** Every name of the requests, in three cases, and names none of them has. */
const NAMES = [...new Set(REQUESTS.flat().map((line) => line.slice(0, line.indexOf(':'))))]
  .flatMap((name) => [name, name.toLowerCase(), name.toUpperCase()])
  .concat(['x-api-key', 'Authorization', 'content-length', 'x-absent', 'ACCEPT', 'x-tenant-id']);

let server: http.Server;
let port: number;
const seen: Array<{ ours: Array<string | null>; fetchApis: Array<string | null> }> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const ours = new NodeRequestHeaders(req.headers);
    const request = normalizeNodeRequest(req, fetchAPI) as Request;
    seen.push({ ours: NAMES.map((name) => ours.get(name)), fetchApis: NAMES.map((name) => request.headers.get(name)) });
    req.resume();
    req.once('end', () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function send(lines: string[]): Promise<void> {
  const chunked = lines.some((line) => /^transfer-encoding:/i.test(line));
  const raw = `POST /graphql HTTP/1.1\r\n${lines.join('\r\n')}\r\nConnection: close\r\n${chunked ? '' : 'Content-Length: 0\r\n'}\r\n${chunked ? '0\r\n\r\n' : ''}`;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(raw));
    socket.on('data', () => {});
    socket.once('close', () => resolve());
    socket.once('error', reject);
  });
}

describe('NodeRequestHeaders', () => {
  it('answers every get as the Fetch API Request of Yoga\'s node adapter does, for the same raw requests', async () => {
    for (const lines of REQUESTS) await send(lines);
    expect(seen).toHaveLength(REQUESTS.length);
    seen.forEach(({ ours, fetchApis }, i) => {
      const differences = NAMES.flatMap((name, j) => (ours[j] === fetchApis[j] ? [] : [{ name, ours: ours[j], fetchApi: fetchApis[j] }]));
      expect(differences, `request ${i}: ${REQUESTS[i]!.join(' | ')}`).toEqual([]);
    });
    // The corpus reads real values, not only absent ones.
    expect(seen.flatMap(({ ours }) => ours).filter((value) => value !== null).length).toBeGreaterThan(40);
  });
});
