// Runtime logs (issue 51, part 5; docs/decisions.md#runtime-logs): data planes append the running service's lines
// to a DEPLOYED revision without a lease; the CLI's `deploy logs` reads them through both deploy_logs routes, and
// `--type build` through build_logs, with `limit`, `order`, `level`, `query`, `start_time` and `end_time`; its
// `--follow` (asc, `start_time` the newest entry's time, dedup by id) sees every line once while lines keep
// coming; a revision keeps its newest 10,000 runtime lines; GraphQL has the same filters, and
// `revisionLogLines` streams new lines without polling. Another tenant's deployment or revision is a 404.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { subscribe, type EventStream } from './support/event-stream.ts';
import { ACME, GLOBEX, importFixture, issueKey, newCipher } from './support/fixtures.ts';
import { dataOf } from './support/graphql-expect.ts';
import { startLiveService, type LiveService } from './support/live-data.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';
import { expectJsonText, restCaller, UUID } from './support/write-calls.ts';

/** The most runtime lines a revision keeps (written out here, not read from src/). */
const KEPT = 10_000;

let db: TestDatabase;
const cipher = newCipher();
let service: LiveService;
const keys = {} as Record<'writer' | 'plane' | 'reader' | 'globexPlane' | 'globexReader', string>;

beforeAll(async () => {
  db = await createTestDatabase();
  await importFixture(db.orm.em.fork(), cipher);
  Object.assign(keys, {
    writer: await issueKey(db.orm.em, [ACME], false, true),
    plane: await issueKey(db.orm.em, [ACME], false, false, true),
    reader: await issueKey(db.orm.em, [ACME]),
    globexPlane: await issueKey(db.orm.em, [GLOBEX], false, false, true),
    globexReader: await issueKey(db.orm.em, [GLOBEX]),
  });
  service = await startLiveService(db, cipher);
});
afterAll(async () => {
  await service?.close();
  await db?.drop();
});

const streams: EventStream[] = [];
afterEach(() => streams.splice(0).forEach((stream) => stream.close()));

const call = restCaller(() => service.app.url, () => keys.reader);

let sequence = 0;
/** A new deployment with one QUEUED revision. */
async function queued(): Promise<{ id: string; revisionId: string }> {
  const created = await call('POST', '/v2/deployments', {
    key: keys.writer, body: { name: `runtime-${++sequence}`, source: 'external_docker', source_config: {}, source_revision_config: { image_uri: 'nginx:1.27' }, secrets: [] },
  });
  expect(created.status, created.text).toBe(201);
  return { id: created.json.id, revisionId: created.json.latest_revision_id };
}

async function claim(revisionId: string): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const answer = await call('POST', '/v2/data-plane/claims', { key: keys.plane, body: { limit: 100 } });
    const lease = answer.json.leases.find((l: { revision_id: string }) => l.revision_id === revisionId);
    if (lease) return lease.lease_id;
  }
  throw new Error(`revision ${revisionId} was not claimed`);
}

const report = async (revisionId: string, leaseId: string, status: string) => {
  const answer = await call('POST', `/v2/data-plane/revisions/${revisionId}/status`, { key: keys.plane, body: { lease_id: leaseId, status } });
  expect(answer.status, answer.text).toBe(200);
};
const append = (revisionId: string, body: Record<string, unknown>, key = keys.plane) => call('POST', `/v2/data-plane/revisions/${revisionId}/logs`, { key, body });

/** A deployment whose revision has BUILD_LINES as its build log, is DEPLOYED, and has `runtime` lines. */
async function deployed(runtime: unknown[] = []): Promise<{ id: string; revisionId: string; lease: string }> {
  const { id, revisionId } = await queued();
  const lease = await claim(revisionId);
  await report(revisionId, lease, 'BUILDING');
  expect((await append(revisionId, { lease_id: lease, phase: 'build', first_line: 0, lines: LINES })).status).toBe(200);
  await report(revisionId, lease, 'DEPLOYED');
  if (runtime.length > 0) {
    const appended = await append(revisionId, { phase: 'runtime', first_line: 0, lines: runtime });
    expect(appended.status, appended.text).toBe(200);
  }
  return { id, revisionId, lease };
}

const at = (second: number) => `2026-01-01T00:00:0${second}.000Z`;
/** Six lines of free-text levels, one a second. */
const LINES = [
  { message: 'server started', level: 'INFO', timestamp: at(0) },
  { message: 'GET /health 200', level: 'debug', timestamp: at(1) },
  { message: 'slow query: 100%_done', level: 'warn', timestamp: at(2) },
  { message: 'GET /api 500', level: 'ERROR', timestamp: at(3) },
  { message: 'out of memory', level: 'fatal', timestamp: at(4) },
  { message: 'get /API again', level: 'info', timestamp: at(5) },
];

/** Each filter, and the lines (by number) it gives, in the order asked for. */
const FILTERS: [Record<string, unknown>, number[]][] = [
  [{}, [0, 1, 2, 3, 4, 5]],
  [{ limit: 2, order: 'desc' }, [5, 4]],
  [{ limit: 2, order: 'asc' }, [0, 1]],
  [{ limit: 2, order: 'asc', offset: 2 }, [2, 3]],
  [{ level: 'INFO' }, [0, 5]],
  [{ level: 'DEBUG' }, [1]],
  [{ level: 'WARNING' }, [2]],
  [{ level: 'ERROR' }, [3]],
  [{ level: 'CRITICAL' }, [4]],
  [{ query: 'get /api' }, [3, 5]],
  [{ query: '%_' }, [2]],
  [{ query: 'nothing like it' }, []],
  [{ start_time: at(3) }, [3, 4, 5]],
  [{ start_time: '2026-01-01T00:00:03' }, [3, 4, 5]],
  [{ end_time: at(2) }, [0, 1]],
  [{ start_time: at(1), end_time: at(3) }, [1, 2]],
  [{ start_time: '2026-01-01T01:00:01+01:00', end_time: '2026-01-01', order: 'desc' }, []],
  [{ level: 'info', query: 'GET', order: 'desc', limit: 100 }, [5]],
];

describe('the log routes\' body', () => {
  it('is required, as a pydantic model body is (no body: 422 missing at ["body"]); `{}` takes every default', async () => {
    const { id, revisionId } = await deployed([{ message: 'up' }]);
    for (const path of [`/v1/projects/${id}/revisions/${revisionId}/build_logs`, `/v1/projects/${id}/deploy_logs`, `/v1/projects/${id}/revisions/${revisionId}/deploy_logs`]) {
      expectJsonText(await call('POST', path), 422, { detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }] });
      const read = await call('POST', path, { body: {} });
      expect(read.status, path).toBe(200);
      expect(read.json.logs.length, path).toBeGreaterThan(0);
    }
  });
});

describe('runtime lines', () => {
  it('are appended to a DEPLOYED revision without a lease, once however often sent, and refused before it is DEPLOYED', async () => {
    const { id, revisionId } = await queued();
    const lease = await claim(revisionId);
    await report(revisionId, lease, 'BUILDING');
    const early = await append(revisionId, { phase: 'runtime', first_line: 0, lines: LINES });
    expect([early.status, early.json]).toEqual([409, {
      detail: `Revision ${revisionId} is BUILDING, not DEPLOYED: only a deployed revision takes runtime log lines.`, status: 'BUILDING',
    }]);
    // Build lines without a lease are refused as a missing field.
    expect((await append(revisionId, { phase: 'build', first_line: 0, lines: LINES })).json.detail[0]).toMatchObject({ type: 'missing', loc: ['body', 'lease_id'] });
    await report(revisionId, lease, 'DEPLOYED');

    expect((await append(revisionId, { phase: 'runtime', first_line: 0, lines: LINES.slice(0, 4) })).json).toEqual({ appended: 4, next_line: 4, lease_expires_at: null });
    expect((await append(revisionId, { phase: 'runtime', first_line: 2, lines: LINES.slice(2) })).json).toEqual({ appended: 2, next_line: 6, lease_expires_at: null });
    expect((await append(revisionId, { phase: 'runtime', first_line: 0, lines: LINES })).json).toEqual({ appended: 0, next_line: 6, lease_expires_at: null });
    expect((await append(revisionId, { phase: 'runtime', first_line: 7, lines: LINES })).json).toMatchObject({ expected_line: 6 });
    // Build lines still end with the revision.
    expect((await append(revisionId, { lease_id: lease, phase: 'build', first_line: 0, lines: LINES })).json.status).toBe('DEPLOYED');

    const read = await call('POST', `/v1/projects/${id}/deploy_logs`, { body: { limit: 100, order: 'desc' } });
    expect(read.status).toBe(200);
    expect(read.json.logs.map((entry: { message: string }) => entry.message)).toEqual(LINES.map((line) => line.message).reverse());
    expect(read.json.logs[0]).toEqual({ id: expect.stringMatching(UUID), message: 'get /API again', timestamp: at(5), level: 'info', line: 5 });
  });

  it('answer each filter alike on both deploy_logs routes, and build_logs takes the same filters', async () => {
    const { id, revisionId } = await deployed(LINES);
    const routes = {
      deployment: `/v1/projects/${id}/deploy_logs`,
      revision: `/v1/projects/${id}/revisions/${revisionId}/deploy_logs`,
      build: `/v1/projects/${id}/revisions/${revisionId}/build_logs`,
    };
    for (const [body, expected] of FILTERS) {
      for (const [name, path] of Object.entries(routes)) {
        const answer = await call('POST', path, { body });
        expect(answer.status, `${name} ${JSON.stringify(body)}: ${answer.text}`).toBe(200);
        expect(answer.json.logs.map((entry: { line: number }) => entry.line), `${name} ${JSON.stringify(body)}`).toEqual(expected);
      }
    }
    const bad = await call('POST', routes.deployment, { body: { start_time: 'yesterday' } });
    expect([bad.status, bad.json.detail[0].loc]).toEqual([422, ['body', 'start_time']]);
  });

  it('are a 404 for another tenant\'s deployment or revision, and none for a deployment with no active revision', async () => {
    const { id, revisionId } = await deployed(LINES);
    const globex = restCaller(() => service.app.url, () => keys.globexReader);
    expect((await globex('POST', `/v1/projects/${id}/deploy_logs`, { body: {} })).json).toEqual({ detail: `Deployment ID ${id} not found.` });
    for (const kind of ['deploy_logs', 'build_logs']) {
      const answer = await globex('POST', `/v1/projects/${id}/revisions/${revisionId}/${kind}`, { body: {} });
      expect([answer.status, answer.json]).toEqual([404, { detail: `Deployment ID ${id} not found.` }]);
    }
    const foreignAppend = await append(revisionId, { phase: 'runtime', first_line: 6, lines: LINES }, keys.globexPlane);
    expect([foreignAppend.status, foreignAppend.json]).toEqual([404, { detail: `Revision ID ${revisionId} not found.` }]);

    const waiting = await queued();
    expect((await call('POST', `/v1/projects/${waiting.id}/deploy_logs`, { body: { limit: 100, order: 'desc' } })).json).toEqual({ logs: [], next_offset: 0 });
    expect((await call('POST', `/v1/projects/${id}/revisions/${waiting.revisionId}/deploy_logs`, { body: {} })).json)
      .toEqual({ detail: `Revision ID ${waiting.revisionId} not found.` });
  });

  it('are followed as the CLI does (asc, start_time the newest entry\'s, dedup by id): every line once while lines keep coming', async () => {
    const { id, revisionId } = await deployed();
    const sent: string[] = [];
    let next = 0;
    const writing = (async () => {
      for (let batch = 0; batch < 40; batch++) {
        // Up to 1,000 lines at once, sent without times: the service gives each its own millisecond.
        const lines = Array.from({ length: batch % 10 === 9 ? 1000 : 1 + (batch % 7) * 3 }, (_, n) => ({ message: `request ${next + n}` }));
        const answer = await append(revisionId, { phase: 'runtime', first_line: next, lines });
        expect(answer.status, answer.text).toBe(200);
        sent.push(...lines.map((line) => line.message));
        next += lines.length;
      }
    })();
    const seen = new Set<string>();
    const printed: string[] = [];
    const print = (logs: { id: string; timestamp: string; message: string }[]) => {
      for (const entry of logs) {
        if (seen.has(entry.id)) continue;
        seen.add(entry.id);
        printed.push(entry.message);
      }
    };
    const first = await call('POST', `/v1/projects/${id}/deploy_logs`, { body: { limit: 100, order: 'desc' } });
    print([...first.json.logs].reverse());
    let newest: string | undefined = first.json.logs[0]?.timestamp;
    let done = false;
    void writing.then(() => { done = true; });
    for (let quiet = 0; quiet < 2;) {
      const finished = done;
      const before = seen.size;
      const page = await call('POST', `/v1/projects/${id}/deploy_logs`, { body: { limit: 100, order: 'asc', ...(newest && { start_time: newest }) } });
      expect(page.status, page.text).toBe(200);
      print(page.json.logs);
      newest = page.json.logs.at(-1)?.timestamp ?? newest;
      // Done once the writer had finished and two polls since brought nothing new.
      if (finished && seen.size === before) quiet++;
    }
    await writing;
    expect(printed).toEqual(sent);
  });

  it('keep the newest 10,000 of a revision, deleting older ones as new ones come', async () => {
    const { id, revisionId } = await deployed();
    const batch = (from: number) => Array.from({ length: 1000 }, (_, n) => ({ message: `runtime ${from + n}` }));
    for (let from = 0; from < KEPT + 1500; from += 1000) {
      const answer = await append(revisionId, { phase: 'runtime', first_line: from, lines: batch(from) });
      expect(answer.status, answer.text).toBe(200);
    }
    const [counted] = await db.query<{ kept: number; oldest: number; newest: number }>(
      `select count(*)::int as kept, min(line) as oldest, max(line) as newest from revision_log_line where revision_id = $1 and phase = 'runtime'`, [revisionId],
    );
    expect(counted).toEqual({ kept: KEPT, oldest: 2000, newest: KEPT + 1999 });
    // Build lines are not touched, and the CLI reads the newest and, at the far end, the oldest kept line.
    expect((await call('POST', `/v1/projects/${id}/revisions/${revisionId}/build_logs`, { body: {} })).json.logs).toHaveLength(LINES.length);
    const oldestRead = await call('POST', `/v1/projects/${id}/deploy_logs`, { body: { limit: 1, order: 'asc' } });
    expect(oldestRead.json.logs.map((entry: { message: string }) => entry.message)).toEqual(['runtime 2000']);
  });
});

const LOG_PAGE = `query Logs($id: ID!, $revisionId: ID!, $filter: RevisionLogFilter, $first: Int, $after: String) {
  deployment(id: $id) {
    revision(id: $revisionId) {
      logPage(phase: RUNTIME, order: DESC, limit: 100, filter: $filter) { lines { id line level } offset }
      logs(phase: RUNTIME, first: $first, after: $after, filter: $filter) {
        edges { node { line } cursor } pageInfo { hasNextPage hasPreviousPage }
      }
    }
  }
}`;

const FOLLOW = `subscription Follow($revisionId: ID!, $afterLine: Int, $filter: RevisionLogFilter) {
  revisionLogLines(revisionId: $revisionId, afterLine: $afterLine, filter: $filter) { revisionId phase lines { id line message level timestamp } }
}`;

describe('GraphQL', () => {
  it('filters the log page and the connection as REST does', async () => {
    const { id, revisionId } = await deployed(LINES);
    const read = async (variables: Record<string, unknown>) =>
      dataOf(await service.app.graphql(LOG_PAGE, { 'x-api-key': keys.reader }, { id, revisionId, ...variables })).deployment.revision;
    const errors = await read({ filter: { level: 'ERROR' } });
    expect(errors.logPage.lines.map((line: { line: number }) => line.line)).toEqual([3]);
    expect(errors.logs.edges.map((edge: { node: { line: number } }) => edge.node.line)).toEqual([3]);
    const windowed = await read({ filter: { query: 'get', startTime: at(1) }, first: 1 });
    expect(windowed.logPage.lines.map((line: { line: number }) => line.line)).toEqual([5, 3, 1]);
    expect(windowed.logs.edges.map((edge: { node: { line: number } }) => edge.node.line)).toEqual([1]);
    expect(windowed.logs.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false });
    const after = await read({ filter: { query: 'get', startTime: at(1) }, first: 5, after: windowed.logs.edges[0].cursor });
    expect(after.logs.edges.map((edge: { node: { line: number } }) => edge.node.line)).toEqual([3, 5]);
    expect(after.logs.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true });
  });

  it('streams new lines without polling (revisionLogLines), with its filter, from a line on, and only to the tenant', async () => {
    const { revisionId } = await deployed(LINES.slice(0, 2));
    const follow = async (variables: Record<string, unknown>, key = keys.reader) => {
      const stream = await subscribe(service.app.url, key, FOLLOW, { variables: { revisionId, ...variables } });
      streams.push(stream);
      return stream;
    };
    const all = await follow({});
    const errors = await follow({ filter: { level: 'error' } });
    const fromStart = await follow({ afterLine: -1 });
    // The stream from the first line sends what is stored at once.
    const stored = await fromStart.nextResult(10_000);
    expect(stored.data.revisionLogLines.lines.map((line: { line: number }) => line.line)).toEqual([0, 1]);

    expect((await append(revisionId, { phase: 'runtime', first_line: 2, lines: LINES.slice(2) })).status).toBe(200);
    const linesOf = async (stream: EventStream) => {
      const lines: number[] = [];
      while (lines.length === 0 || lines.at(-1)! < 5) {
        const result = await stream.nextResult(10_000);
        expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
        expect(result.data.revisionLogLines).toMatchObject({ revisionId, phase: 'RUNTIME' });
        lines.push(...result.data.revisionLogLines.lines.map((line: { line: number }) => line.line));
        if (stream === errors) break;
      }
      return lines;
    };
    expect(await linesOf(all)).toEqual([2, 3, 4, 5]);
    expect(await linesOf(fromStart)).toEqual([2, 3, 4, 5]);
    expect(await linesOf(errors)).toEqual([3]);

    const foreign = await follow({}, keys.globexReader);
    const refusal = await foreign.nextResult(10_000);
    expect(refusal.errors[0]).toMatchObject({ message: `Revision ID ${revisionId} not found.`, extensions: { code: 'NOT_FOUND' } });
  });
});
