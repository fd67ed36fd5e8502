// WORKERS=2: the real service (`node src/main.ts`, an embedded PostgreSQL with the demo data), a cluster primary
// and two workers on one port. Which worker answered a request is read from the access log (its `worker` field,
// found by the request id the test sends). Requests go on fresh connections, which the primary hands to the
// workers in turn.
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TENANT_ID } from '../src/demo/demo-dataset.ts';
import { runNode, startService, type ServiceProcess } from './support/service-process.ts';

const BUDGET = 20;
let dataDir: string;
let service: ServiceProcess;
let demoKey: string;
let sequence = 0;

const ENV = () => ({ DATA_DIR: dataDir, WORKERS: '2', RATE_LIMIT_PER_MINUTE: String(BUDGET), LOG_LEVEL: 'info' });

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dmg-workers-'));
  await fs.chmod(dataDir, 0o711); // PostgreSQL runs as another user when the tests run as root
  service = await startService(ENV());
  demoKey = /Demo API key \([^)]*\): (dmk_\S+)/.exec(service.output())![1]!;
}, 180_000);

afterAll(async () => {
  if (service && !isGone(service.pid)) {
    service.kill('SIGKILL');
    await service.exited;
  }
  await stopPostgresLeftIn(dataDir);
  await fs.rm(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  id: string;
}

/** One request on a connection of its own, with a request id to find it in the access log. */
function send(urlPath: string, options: { key?: string; method?: string; body?: string } = {}): Promise<Answer> {
  const id = `workers-${process.pid}-${++sequence}`;
  const { port } = new URL(service.url);
  const headers: http.OutgoingHttpHeaders = { 'x-request-id': id, connection: 'close', ...(options.key && { 'x-api-key': options.key }) };
  if (options.body) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(options.body) });
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, path: urlPath, method: options.method ?? 'GET', headers, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.once('end', () => resolve({ status: response.statusCode!, headers: response.headers, body, id }));
    });
    request.once('error', reject);
    request.end(options.body);
  });
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The worker that answered, from its access log line. */
async function workerOf(answer: Answer): Promise<number> {
  const [line] = await service.waitFor(new RegExp(`^.*"requestId":"${escape(answer.id)}".*$`, 'm'));
  return JSON.parse(line).worker;
}

const tenantQuery = (key: string) => send('/graphql', { key, method: 'POST', body: JSON.stringify({ query: '{ tenant { name } }' }) });

async function cli(...args: string[]): Promise<string> {
  const child = runNode('src/cli/apikey.ts', args, { DATA_DIR: dataDir });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise((resolve) => child.once('close', resolve));
  expect(code, output).toBe(0);
  return output;
}

async function newKey(): Promise<{ key: string; prefix: string }> {
  const output = await cli('create', '--tenant', DEMO_TENANT_ID, '--name', 'workers-test');
  return { key: /^(dmk_\S+)$/m.exec(output)![1]!, prefix: /Created API key (\S+)/.exec(output)![1]! };
}

/** Sends `request` until both workers have answered it (connections go to them in turn: two attempts do). */
async function fromBothWorkers(request: () => Promise<Answer>): Promise<Array<Answer & { worker: number }>> {
  const answers: Array<Answer & { worker: number }> = [];
  for (let attempt = 0; attempt < 6 && new Set(answers.map((a) => a.worker)).size < 2; attempt++) {
    const answer = await request();
    answers.push({ ...answer, worker: await workerOf(answer) });
  }
  expect(new Set(answers.map((a) => a.worker))).toEqual(new Set([1, 2]));
  return answers;
}

function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** The PIDs of the service's workers (the primary's children running src/main.ts; PostgreSQL is its child too). */
async function workerPids(): Promise<number[]> {
  const children = (await fs.readFile(`/proc/${service.pid}/task/${service.pid}/children`, 'utf8')).trim().split(/\s+/).filter(Boolean).map(Number);
  const pids: number[] = [];
  for (const pid of children) {
    const command = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (command.includes('src/main.ts')) pids.push(pid);
  }
  return pids;
}

async function postgresPid(): Promise<number> {
  return Number((await fs.readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
}

async function stopPostgresLeftIn(dir: string): Promise<void> {
  const pidFile = path.join(dir, 'postgres', 'postmaster.pid');
  if (!dir || !existsSync(pidFile)) return;
  try {
    process.kill(Number((await fs.readFile(pidFile, 'utf8')).split('\n')[0]), 'SIGINT');
  } catch { /* already gone */ }
  for (let waited = 0; existsSync(pidFile) && waited < 30_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
}

describe('WORKERS=2', () => {
  it('serves one port from both workers and announces itself once', async () => {
    expect(service.output().match(/GraphQL ready at/g)).toHaveLength(1);
    expect(service.output()).toContain('(database: embedded PostgreSQL in');
    expect(service.output()).toContain(', 2 workers)');
    const answers = await fromBothWorkers(() => tenantQuery(demoKey));
    for (const answer of answers) expect(JSON.parse(answer.body)).toEqual({ data: { tenant: { name: 'Demo Workspace' } } });
  });

  it('reads secret values on both workers with the key the primary generated and checked', async () => {
    const query = '{ deployments(limit: 100) { resources { uuid secrets { name value } } } }';
    const answers = await fromBothWorkers(() => send('/graphql', { key: demoKey, method: 'POST', body: JSON.stringify({ query }) }));
    const bodies = answers.map((answer) => JSON.parse(answer.body));
    for (const body of bodies) {
      expect(body.errors).toBeUndefined();
      const values = body.data.deployments.resources.flatMap((d: { secrets: { value: string | null }[] }) => d.secrets.map((secret) => secret.value));
      expect(values.length).toBeGreaterThan(0);
      expect(values.every((value: string | null) => typeof value === 'string' && value.length > 0)).toBe(true);
    }
    expect(bodies[1]).toEqual(bodies[0]);
  });

  it('refuses a key revoked with the CLI on every worker, also where it was cached', async () => {
    const { key, prefix } = await newKey();
    // Both workers have verified (and cached) the key.
    for (const answer of await fromBothWorkers(() => tenantQuery(key))) expect(answer.status).toBe(200);
    expect(await cli('revoke', prefix)).toContain(`Revoked API key ${prefix}`);
    // From the moment the CLI has returned, whichever worker answers.
    const after = await fromBothWorkers(() => tenantQuery(key));
    expect(after.map((a) => a.status)).toEqual(after.map(() => 401));
  });

  it(`gives a key its configured budget (${BUDGET} a minute), not one per worker`, async () => {
    const { key } = await newKey();
    const answers: Array<Answer & { worker: number }> = [];
    for (let i = 0; i < BUDGET; i++) {
      const answer = await send('/v2/deployments?limit=1', { key });
      answers.push({ ...answer, worker: await workerOf(answer) });
    }
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map((a) => a.worker))).toEqual(new Set([1, 2]));
    // One count, whichever worker answers.
    expect(answers.map((a) => Number(a.headers['ratelimit-remaining']))).toEqual([...Array(BUDGET).keys()].reverse());
    const refused = await send('/v2/deployments?limit=1', { key });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
  });

  it('answers /metrics, from either worker, with both workers\' series', async () => {
    const healthCounts = (metrics: string) => [1, 2].map((worker) =>
      Number(new RegExp(`^http_requests_total\\{route="/health",method="GET",status="200",worker="${worker}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0));
    const before = healthCounts((await send('/metrics')).body);
    const healthAnswers = await fromBothWorkers(() => send('/health'));
    const expected = [1, 2].map((worker, i) => before[i]! + healthAnswers.filter((a) => a.worker === worker).length);
    for (const scrape of await fromBothWorkers(() => send('/metrics'))) {
      expect(scrape.status).toBe(200);
      expect(scrape.body).toMatch(/^worker_restarts_total\{worker="primary"\} 0$/m);
      expect(scrape.body).toMatch(/^process_resident_memory_bytes\{worker="1"\} \d+$/m);
      expect(healthCounts(scrape.body)).toEqual(expected);
    }
  });

  it('replaces a worker killed with SIGKILL, and keeps answering meanwhile', async () => {
    const [victim, survivor] = await workerPids();
    expect(survivor).toBeDefined();
    process.kill(victim!, 'SIGKILL');
    await service.waitFor(new RegExp(`worker \\d \\(PID ${victim}\\) was killed by SIGKILL; starting another in \\d+ ms`));
    // The other worker answers every connection until the replacement serves.
    expect((await tenantQuery(demoKey)).status).toBe(200);
    await service.waitFor(/"msg":"worker serving again"/);
    const pids = await workerPids();
    expect(pids).toHaveLength(2);
    expect(pids).not.toContain(victim);
    for (const answer of await fromBothWorkers(() => tenantQuery(demoKey))) expect(answer.status).toBe(200);
  });

  it('on SIGTERM, lets every worker finish its requests in flight, then stops PostgreSQL and exits 0', async () => {
    const postgres = await postgresPid();
    const { port } = new URL(service.url);
    // Requests whose bodies are only half sent: in flight in their worker until the test sends the rest.
    const body = JSON.stringify({ query: '{ deployments(limit: 100) { resources { uuid name status } } }' });
    const halfSent = Array.from({ length: 4 }, () => {
      const request = http.request({
        host: '127.0.0.1', port, path: '/graphql', method: 'POST', agent: false,
        headers: { 'x-api-key': demoKey, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
        request.once('response', (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.once('end', () => resolve({ status: response.statusCode!, body: text }));
        });
        request.once('error', reject);
      });
      request.write(body.slice(0, 10));
      return { request, answered };
    });
    // Both workers count them in flight (their gauge, as /metrics shows it; the scrape itself is one more).
    for (let tries = 0; ; tries++) {
      const metrics = (await send('/metrics')).body;
      const inFlight = [1, 2].map((worker) => Number(new RegExp(`^http_requests_in_flight\\{worker="${worker}"\\} (\\d+)$`, 'm').exec(metrics)?.[1]));
      if (inFlight[0]! + inFlight[1]! === halfSent.length + 1 && Math.min(...inFlight) >= 2) break;
      expect(tries, metrics).toBeLessThan(100);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    service.kill('SIGTERM');
    await service.waitFor(/"worker":1,"signal":"primary","inFlight":\d,"msg":"shutting down/);
    await service.waitFor(/"worker":2,"signal":"primary","inFlight":\d,"msg":"shutting down/);
    for (const { request } of halfSent) request.end(body.slice(10));
    for (const { answered } of halfSent) {
      const answer = await answered;
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).data.deployments.resources).toHaveLength(60);
    }
    expect(await service.exited).toBe(0);
    expect(service.output()).toMatch(/"msg":"stopped"\}\n$/);
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    expect(isGone(postgres)).toBe(true);
  });

  it('stops the service with one line when workers keep exiting, and stops PostgreSQL', async () => {
    if (!isGone(service.pid)) expect(await service.stop()).toBe(0); // when run alone
    service = await startService(ENV());
    const postgres = await postgresPid();
    for (let exits = 1; exits <= 5; exits++) {
      // Both may be gone for a moment, their replacements not forked yet.
      let pids = await workerPids();
      for (let waited = 0; pids.length === 0 && waited < 20_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        pids = await workerPids();
      }
      const [pid] = pids;
      process.kill(pid!, 'SIGKILL');
      await service.waitFor(new RegExp(`\\(PID ${pid}\\) was killed by SIGKILL`));
    }
    await service.waitFor(/workers keep exiting/);
    expect(await service.exited).toBe(1);
    expect(service.output()).toMatch(/"level":"error",.*"msg":"workers keep exiting \(5 times within 60 s; the last: worker \d \(PID \d+\) was killed by SIGKILL\): stopping the service"/);
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    expect(isGone(postgres)).toBe(true);
  }, 120_000);

  it('stops with one line, printed once, when start-up fails before the workers', async () => {
    const env = { WORKERS: '2', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere', SECRETS_KEY: Buffer.alloc(32, 1).toString('base64') };
    await expect(startService(env)).rejects.toThrow(/exited with 1 before it was ready:\nCannot connect to DATABASE_URL \(postgres:\/\/postgres@127\.0\.0\.1:1\/nowhere\): [^\n]*ECONNREFUSED[^\n]*\n$/);
  });
});
