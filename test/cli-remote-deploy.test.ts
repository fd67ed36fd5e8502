// Issue 51, part 5: the maker's CLI's `deploy --remote` and `deploy logs`, every request as it sends them
// (shared/spec/cli-deploy-flow.md), against the real service while examples/data-plane runs as a child process
// (`npm run example:data-plane`): a real .tar.gz made here with node-tar is PUT by a plain HTTP client without
// the key and without following a redirect; the simulator downloads and unpacks it, lists its files and the
// graphs of its langgraph.json in the build log, and walks the revision to DEPLOYED, then ships runtime lines.
// An archive without a readable config ends BUILD_FAILED, its reason among the last 30 lines the CLI prints; so
// does a hostile one past the simulator's limits (entries, unpacked size, a config path outside it), and one
// that tries to write outside its folder (`..`, an absolute path, a link) writes nothing there.
// Waits are bounds (a slow machine is slow, not wrong); the CLI's poll interval (3 s) is shortened here.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ENTRIES, MAX_UNPACKED_BYTES } from '../examples/data-plane/src/source-archive.ts';
import { PROJECT_ROOT } from '../src/config.ts';
import { cliHttp, lookUpByName, type CliAnswer } from './support/cli-http.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME } from './support/fixtures.ts';
import { cliPut } from './support/object-http.ts';
import { startScript, type ScriptRun } from './support/script-run.ts';
import { restCaller, TERMINAL_STATUSES } from './support/write-calls.ts';

const SIMULATOR = path.join(PROJECT_ROOT, 'examples/data-plane/src/simulator.ts');
const POLL_MS = 50;
const BOUND_MS = 30_000;

let fixture: FixtureApp<'cli' | 'plane'>;
let simulator: ScriptRun;
let projects: string;
beforeAll(async () => {
  fixture = await startFixtureApp([], { cli: { tenants: [ACME], mayWrite: true }, plane: { tenants: [ACME], mayReconcile: true } });
  projects = await mkdtemp(path.join(tmpdir(), 'cli-remote-deploy-'));
  simulator = startScript(SIMULATOR, [], { GATEWAY_URL: fixture.app.url, RECONCILE_KEY: fixture.keys.plane, STEP_MS: '150' });
  await simulator.printed(/ Data-plane SIMULATOR \(builds and runs nothing\): claiming queued revisions from /);
});
afterAll(async () => {
  if (simulator) {
    simulator.signal('SIGTERM');
    const { code, stderr } = await simulator.ended;
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  }
  if (projects) await rm(projects, { recursive: true, force: true });
  await fixture?.close();
});

const cli = cliHttp(() => fixture.app.url, () => fixture.keys.cli);
const plane = restCaller(() => fixture.app.url, () => fixture.keys.plane);

function ok(answer: CliAnswer, status = 200): any {
  expect(answer.status, answer.raw.body.toString('utf8')).toBe(status);
  return answer.json;
}

const LANGGRAPH_JSON = JSON.stringify({ dependencies: ['.'], graphs: { agent: './agent.py:graph', researcher: './research/graph.py:app' }, env: '.env' });

/** A project folder with `files`, packed as the CLI packs it (a .tar.gz of the folder's contents), with node-tar. */
async function projectArchive(name: string, files: Record<string, string>): Promise<Buffer> {
  const dir = path.join(projects, name);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of tar.c({ gzip: true, cwd: dir, portable: true }, Object.keys(files))) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface CraftedEntry {
  path: string;
  /** The size its header declares; default the body's. */
  size?: number;
  type?: 'File' | 'Directory' | 'SymbolicLink' | 'Link';
  linkpath?: string;
  body?: string;
}

/**
 * A .tar.gz written entry by entry with node-tar's own header encoder, as a hostile client can make one: paths
 * node-tar's packer would never write, and headers whose declared size their bodies do not have.
 */
function craftedArchive(entries: CraftedEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const { path: entryPath, body = '', type = 'File', linkpath, size = Buffer.byteLength(body) } of entries) {
    const header = new tar.Header({ path: entryPath, type, linkpath, size: type === 'File' ? size : 0, mode: type === 'Directory' ? 0o755 : 0o644, mtime: new Date(0), uid: 0, gid: 0 });
    header.encode();
    blocks.push(header.block!);
    const bytes = Buffer.from(body);
    blocks.push(bytes, Buffer.alloc((512 - (bytes.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

interface Deployed {
  id: string;
  revisionId: string;
  status: string;
  statuses: string[];
  /** What `--verbose` printed while the build ran. */
  printed: string[];
  /** Without `--verbose` on BUILD_FAILED: the last 30 lines, as read (newest first). */
  failureLogs?: string[];
  url: string | null;
}

/** `deploy --remote --no-input [--verbose]`, steps 1-10 of shared/spec/cli-deploy-flow.md. */
async function deployRemote(name: string, archive: Buffer, { verbose = false, configPath = 'langgraph.json' } = {}): Promise<Deployed> {
  // 1. By name; 2. created when not found (no config path), reading `id`.
  let id = await lookUpByName(cli, name);
  if (!id) {
    id = ok(await cli('POST', '/v2/deployments', {
      body: `{"name":"${name}","source":"internal_source","source_config":{"deployment_type":"dev"},"source_revision_config":{},"secrets":[{"name":"OPENAI_API_KEY","value":"sk-remote"}]}`,
    }), 201).id as string;
  }
  // 4. The upload URL, no body; 5. the PUT: no key, the CLI's headers, no redirect followed (node:http follows none).
  const issued = ok(await cli('POST', `/v2/deployments/${id}/upload-url`));
  expect(typeof issued.upload_url === 'string' && issued.upload_url.length > 0 && typeof issued.object_path === 'string' && issued.object_path.length > 0).toBe(true);
  const put = await cliPut(issued.upload_url, archive);
  expect({ status: put.status, location: put.headers.location }, put.text).toEqual({ status: 200, location: undefined });
  // 6. The PATCH naming the archive and the config file's path inside it.
  ok(await cli('PATCH', `/v2/deployments/${id}`, {
    body: `{"revision_source":"internal_source","source_revision_config":{"source_tarball_path":"${issued.object_path}","graph_config_path":${JSON.stringify(configPath)}},"secrets":[{"name":"OPENAI_API_KEY","value":"sk-remote"}]}`,
  }));
  // 7. The newest revision.
  const revisions = ok(await cli('GET', `/v2/deployments/${id}/revisions?limit=1`));
  expect(revisions.resources.length).toBeGreaterThan(0);
  const revisionId: string = revisions.resources[0].id;
  // 8-9. Poll until terminal; with --verbose, tail the build log while it builds.
  const statuses: string[] = [];
  const printed: string[] = [];
  let nextOffset: number | undefined;
  let status = 'UNKNOWN';
  const deadline = Date.now() + BOUND_MS;
  for (;;) {
    status = ok(await cli('GET', `/v2/deployments/${id}/revisions/${revisionId}`)).status;
    if (statuses.at(-1) !== status) statuses.push(status);
    if (verbose && (status === 'AWAITING_BUILD' || status === 'BUILDING')) {
      const body = nextOffset === undefined ? '{"order":"asc","limit":50}' : `{"order":"asc","limit":50,"offset":${nextOffset}}`;
      const page = await cli('POST', `/v1/projects/${id}/revisions/${revisionId}/build_logs`, { body });
      if (page.status === 200) {
        printed.push(...page.json.logs.map((line: { message: string }) => line.message));
        nextOffset = page.json.next_offset;
      }
    }
    if (TERMINAL_STATUSES.includes(status)) break;
    if (Date.now() > deadline) throw new Error(`revision ${revisionId} still ${status} after ${BOUND_MS} ms: ${statuses.join(' → ')}\n${simulator.stdout}`);
    await sleep(POLL_MS);
  }
  let failureLogs: string[] | undefined;
  if (status === 'BUILD_FAILED' && !verbose) {
    failureLogs = ok(await cli('POST', `/v1/projects/${id}/revisions/${revisionId}/build_logs`, { body: '{"order":"desc","limit":30}' }))
      .logs.map((line: { message: string }) => line.message);
  }
  // 10. The URL it prints.
  const url = ok(await cli('GET', `/v2/deployments/${id}`)).source_config.custom_url;
  return { id, revisionId, status, statuses, printed, failureLogs, url };
}

interface LogEntry { id: string; timestamp: string; level: string | null; message: string; line: number }

/** `deploy logs` (either type): one call with the CLI's body. */
async function logs(route: string, body: Record<string, unknown>): Promise<LogEntry[]> {
  return ok(await cli('POST', route, { body: JSON.stringify(body) })).logs;
}

/** Asks `route` (desc, limit 100) until it shows `count` lines: the simulator ships them after DEPLOYED. */
async function untilLines(route: string, count: number): Promise<LogEntry[]> {
  const deadline = Date.now() + BOUND_MS;
  for (;;) {
    const seen = await logs(route, { limit: 100, order: 'desc' });
    if (seen.length >= count) return seen;
    if (Date.now() > deadline) throw new Error(`${route} shows ${seen.length} lines after ${BOUND_MS} ms, not ${count}`);
    await sleep(POLL_MS);
  }
}

const messages = (entries: LogEntry[]) => entries.map((entry) => entry.message);

describe('the CLI\'s `deploy --remote --verbose` while examples/data-plane builds from the archive', () => {
  let deployed: Deployed;
  let build: LogEntry[];
  beforeAll(async () => {
    const archive = await projectArchive('remote-agent', {
      'langgraph.json': LANGGRAPH_JSON,
      'agent.py': 'from langgraph.graph import StateGraph\ngraph = StateGraph(dict).compile()\n',
      'research/graph.py': 'app = None\n',
      'requirements.txt': 'langgraph==0.2.0\n',
    });
    deployed = await deployRemote('remote-agent', archive, { verbose: true });
    build = await logs(`/v1/projects/${deployed.id}/revisions/${deployed.revisionId}/build_logs`, { limit: 1000, order: 'asc' });
  }, 60_000);

  it('ends DEPLOYED with the URL the simulator reported, its build log naming the archive\'s files and graphs', () => {
    expect({ status: deployed.status, url: deployed.url }).toEqual({ status: 'DEPLOYED', url: `https://${deployed.id}.example.invalid` });
    expect(deployed.statuses.at(0)).toMatch(/^(QUEUED|AWAITING_BUILD|BUILDING)$/);
    expect(messages(build)).toEqual(expect.arrayContaining([
      expect.stringMatching(/^\[simulator\] Downloaded source archive \(\d+ bytes\)$/),
      '[simulator] Unpacked 4 files: agent.py, langgraph.json, requirements.txt, research/graph.py',
      '[simulator] Config langgraph.json: graphs agent (./agent.py:graph), researcher (./research/graph.py:app); dependencies .',
    ]));
    // What --verbose printed: each line once, in order, as far as it read before the build ended.
    expect(deployed.printed.length).toBeGreaterThan(0);
    expect(deployed.printed).toEqual(messages(build).slice(0, deployed.printed.length));
  });

  it('`deploy logs --type build` (latest revision) with each filter, the order and the limit', async () => {
    const revisions = ok(await cli('GET', `/v2/deployments/${deployed.id}/revisions?limit=1`));
    const route = `/v1/projects/${deployed.id}/revisions/${revisions.resources[0].id}/build_logs`;
    const newest = await logs(route, { limit: 100, order: 'desc' });
    expect(newest).toEqual([...build].reverse());
    expect(await logs(route, { limit: 2, order: 'desc' })).toEqual(newest.slice(0, 2));
    expect(messages(await logs(route, { limit: 100, order: 'desc', query: 'LANGGRAPH.json' })))
      .toEqual(messages(newest).filter((message) => /langgraph\.json/i.test(message)));
    expect(await logs(route, { limit: 100, order: 'desc', level: 'INFO' })).toEqual(newest.filter((entry) => entry.level?.toLowerCase() === 'info'));
    expect(await logs(route, { limit: 100, order: 'desc', level: 'ERROR' })).toEqual([]);
    // A window: from the Unpacked line's time (inclusive) to the last line's (exclusive).
    const unpacked = build.find((entry) => entry.message.includes('Unpacked'))!;
    const last = build.at(-1)!;
    expect(last.timestamp > unpacked.timestamp).toBe(true);
    const window = await logs(route, { limit: 100, order: 'desc', start_time: unpacked.timestamp, end_time: last.timestamp });
    expect(window).toEqual(newest.filter((entry) => entry.timestamp >= unpacked.timestamp && entry.timestamp < last.timestamp));
    expect(window.map((entry) => entry.id)).toContain(unpacked.id);
  });

  it('`deploy logs` (--type deploy, both routes) shows the simulator\'s runtime lines, with each filter; --follow sees new lines once', async () => {
    const route = `/v1/projects/${deployed.id}/deploy_logs`;
    const byRevision = `/v1/projects/${deployed.id}/revisions/${deployed.revisionId}/deploy_logs`;
    const newest = await untilLines(route, 3);
    expect(newest.map((entry) => `${entry.level} ${entry.message}`)).toEqual([
      'WARNING [simulator] no traffic: this service is simulated', 'DEBUG [simulator] GET /health 200', 'INFO [simulator] server listening on :8080 (nothing listens)',
    ]);
    expect(await logs(byRevision, { limit: 100, order: 'desc' })).toEqual(newest);
    expect(messages(await logs(route, { limit: 100, order: 'desc', level: 'WARNING' }))).toEqual(['[simulator] no traffic: this service is simulated']);
    expect(messages(await logs(byRevision, { limit: 100, order: 'desc', level: 'DEBUG' }))).toEqual(['[simulator] GET /health 200']);
    expect(messages(await logs(route, { limit: 100, order: 'desc', query: 'HEALTH' }))).toEqual(['[simulator] GET /health 200']);
    expect(await logs(route, { limit: 1, order: 'desc' })).toEqual(newest.slice(0, 1));
    expect(await logs(route, { limit: 100, order: 'asc' })).toEqual([...newest].reverse());
    const oldest = newest.at(-1)!;
    expect(await logs(byRevision, { limit: 100, order: 'desc', end_time: oldest.timestamp })).toEqual(newest.filter((entry) => entry.timestamp < oldest.timestamp));
    expect(await logs(route, { limit: 100, order: 'desc', start_time: newest[0]!.timestamp })).toEqual(newest.filter((entry) => entry.timestamp >= newest[0]!.timestamp));

    // --follow: printed oldest first, then every poll asc from the newest entry's time, skipping ids it has seen.
    const seen = new Set(newest.map((entry) => entry.id));
    const printed = messages([...newest].reverse());
    let from = newest[0]!.timestamp;
    const poll = async () => {
      const page = await logs(route, { limit: 100, order: 'asc', start_time: from });
      const fresh = page.filter((entry) => !seen.has(entry.id));
      fresh.forEach((entry) => seen.add(entry.id));
      printed.push(...messages(fresh));
      if (page.length > 0) from = page.at(-1)!.timestamp;
      return { page, fresh };
    };
    const first = await poll();
    // Inclusive start: the newest entry comes again, and is not printed twice.
    expect(first.page.map((entry) => entry.id)).toContain(newest[0]!.id);
    expect(first.fresh).toEqual([]);
    // The running service prints on (shipped as the simulator ships its lines: runtime, no lease).
    const shipped = await plane('POST', `/v2/data-plane/revisions/${deployed.revisionId}/logs`, {
      body: { phase: 'runtime', first_line: 3, lines: [{ message: 'GET /threads 200', level: 'INFO' }, { message: 'GET /threads 500', level: 'ERROR' }] },
    });
    expect(shipped.status, shipped.text).toBe(200);
    for (let i = 0; i < 3; i++) await poll();
    expect(printed).toEqual([
      '[simulator] server listening on :8080 (nothing listens)', '[simulator] GET /health 200', '[simulator] no traffic: this service is simulated',
      'GET /threads 200', 'GET /threads 500',
    ]);
  });
});

describe('the CLI\'s `deploy --remote` of an archive without a readable langgraph.json', () => {
  it.each([
    ['missing', { 'agent.py': 'graph = None\n', 'requirements.txt': 'langgraph\n' }, 'Cannot read langgraph.json: not in the archive'],
    ['not JSON', { 'langgraph.json': '{"graphs": {', 'agent.py': 'graph = None\n' }, 'Cannot read langgraph.json: not JSON ('],
    ['without graphs', { 'langgraph.json': '{"dependencies":["."]}', 'agent.py': 'graph = None\n' }, 'Cannot read langgraph.json: has no "graphs"'],
  ])('(%s) ends BUILD_FAILED, exit 1, and the last 30 lines it prints give the reason', async (_case, files, reason) => {
    // One deployment for the three: the second and third deploys find it by name and skip the create.
    const deployed = await deployRemote('remote-broken', await projectArchive(`broken-${_case.replace(' ', '-')}`, files));
    expect(deployed.status).toBe('BUILD_FAILED');
    expect(deployed.statuses).not.toContain('AWAITING_DEPLOY');
    expect(deployed.failureLogs![0]).toContain(`[simulator] BUILD_FAILED: ${reason}`);
    expect(deployed.failureLogs!.some((line) => line.startsWith('[simulator] Unpacked '))).toBe(true);
    expect(deployed.url).toBeNull();
    // The revision's status message says it too (GraphQL).
    const read = await fixture.app.graphql('query ($id: ID!, $r: ID!) { deployment(id: $id) { revision(id: $r) { statusMessage } } }',
      { 'x-api-key': fixture.keys.cli }, { id: deployed.id, r: deployed.revisionId });
    expect(read.body.data.deployment.revision.statusMessage).toContain(reason);
  }, 60_000);
});

describe('the data plane\'s limits on a hostile archive (examples/data-plane/src/source-archive.ts)', () => {
  const config = { path: 'langgraph.json', body: LANGGRAPH_JSON };

  it.each([
    // Links count as entries but are never written (quick to refuse); the files at the end are being written
    // when the entry past the limit is refused.
    ['more entries than MAX_ENTRIES', () => craftedArchive([
      config,
      ...Array.from({ length: MAX_ENTRIES - 500 }, (_, n) => ({ path: `links/${n}`, type: 'SymbolicLink' as const, linkpath: '../langgraph.json' })),
      ...Array.from({ length: 500 }, (_, n) => ({ path: `many/${n}.py`, body: 'x = 1\n' })),
    ]),
      `The source archive holds more than ${MAX_ENTRIES} entries`],
    // The header alone says it: the refusal comes before the body, which is not even there.
    ['a file larger than MAX_UNPACKED_BYTES', () => craftedArchive([config, { path: 'huge.bin', size: MAX_UNPACKED_BYTES + 1, body: 'x'.repeat(1024) }]),
      `The source archive unpacks to more than ${MAX_UNPACKED_BYTES} bytes`],
  ])('(%s) ends BUILD_FAILED with the limit as the reason', async (_case, archive, reason) => {
    const deployed = await deployRemote('remote-hostile', archive());
    expect(deployed.status).toBe('BUILD_FAILED');
    expect(deployed.failureLogs![0]).toBe(`[simulator] BUILD_FAILED: ${reason}`);
    expect(deployed.url).toBeNull();
  }, 60_000);

  it('ends BUILD_FAILED when the revision\'s config path leads outside the archive', async () => {
    const deployed = await deployRemote('remote-hostile', craftedArchive([config]), { configPath: '../../../etc/passwd' });
    expect(deployed.status).toBe('BUILD_FAILED');
    expect(deployed.failureLogs![0]).toBe('[simulator] BUILD_FAILED: Cannot read ../../../etc/passwd: not a path inside the archive');
  }, 60_000);

  it('writes nothing outside its folder: `..` entries are skipped, an absolute path lands inside, links are dropped and not followed', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'hostile-outside-'));
    const escaped = path.join(outside, 'escaped.txt');
    const absolute = path.join(outside, 'absolute.txt');
    const depth = '../'.repeat(12);
    const deployed = await deployRemote('remote-hostile', craftedArchive([
      config,
      { path: `${depth}${escaped.slice(1)}`, body: 'escaped\n' },
      { path: absolute, body: 'absolute\n' },
      { path: 'link', type: 'SymbolicLink', linkpath: outside },
      { path: 'link/through-link.txt', body: 'through a link\n' },
      { path: 'hard', type: 'Link', linkpath: escaped },
    ]), { verbose: true });
    try {
      expect(deployed.status).toBe('DEPLOYED');
      expect(existsSync(escaped)).toBe(false);
      expect(existsSync(absolute)).toBe(false);
      expect(existsSync(path.join(outside, 'through-link.txt'))).toBe(false);
      // Inside, as plain files: the absolute path without its root, the link's name as a folder.
      const unpacked = deployed.printed.find((line) => line.startsWith('[simulator] Unpacked '));
      expect(unpacked).toBe(`[simulator] Unpacked 3 files: ${[absolute.slice(1), 'langgraph.json', 'link/through-link.txt'].sort().join(', ')}`);
      const skipped = deployed.printed.find((line) => line.startsWith('[simulator] Skipped '));
      expect(skipped).toContain('link (SymbolicLink)');
      expect(skipped).toContain('hard (Link)');
      expect(skipped).toContain(`${depth}${escaped.slice(1)}`);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  }, 60_000);
});
