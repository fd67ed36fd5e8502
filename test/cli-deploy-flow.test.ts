// The maker's CLI's `deploy` end to end (issue 43 item 5): its calls replayed as raw HTTP in its order and with
// its bodies (shared/spec/original-write-side.md §6.3-§6.5: look up by name, create, PATCH the build in,
// `revisions?limit=1`, poll the revision until a terminal status, read the deployment's URL), while a test data
// plane, using only the public data-plane API with a reconcile key, claims the revision and reports its progress.
// The two take turns: the data plane makes its next move only once the poller has seen the last one, so every
// status is seen, whatever the machine's speed (the waits are bounds, not assertions). The poll interval is
// shorter than the CLI's 1 s; the logic is the CLI's.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliHttp, lookUpByName } from './support/cli-http.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME } from './support/fixtures.ts';
import { restCaller, TERMINAL_STATUSES } from './support/write-calls.ts';
import { archiveOf, objectRequest, uploadArchive } from './support/object-http.ts';

let fixture: FixtureApp<'cli' | 'plane'>;
beforeAll(async () => {
  fixture = await startFixtureApp([], { cli: { tenants: [ACME], mayWrite: true }, plane: { tenants: [ACME], mayReconcile: true } });
});
afterAll(() => fixture?.close());

const cli = cliHttp(() => fixture.app.url, () => fixture.keys.cli);

/** The bound of every wait for the other side's next step (a slow machine is slow, not wrong). */
const STEP_BOUND_MS = 15_000;

/**
 * What the CLI did so far, as the data plane may watch it: each status its polls read, each line it printed
 * while tailing a build. `until` resolves once a condition holds (checked after every step of the CLI's).
 */
class CliWatch {
  readonly statuses: string[] = [];
  readonly printed: string[] = [];
  /** build_logs calls (while tailing) that brought at least one line. */
  pagesWithLines = 0;
  revisionId: string | undefined;
  private readonly waiting = new Set<() => void>();
  readonly stop = new AbortController();

  saw(status: string): void {
    this.statuses.push(status);
    this.changed();
  }

  print(lines: string[]): void {
    this.printed.push(...lines);
    if (lines.length > 0) this.pagesWithLines++;
    this.changed();
  }

  seen(status: string): boolean {
    return this.statuses.includes(status);
  }

  async until(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + STEP_BOUND_MS;
    while (!condition()) {
      if (this.stop.signal.aborted) throw new Error(`the CLI stopped before ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`waited ${STEP_BOUND_MS} ms for ${what}; the CLI saw ${JSON.stringify(this.statuses.slice(-5))}, printed ${this.printed.length} lines`);
      await new Promise<void>((resolve) => {
        const wake = () => { clearTimeout(timer); this.waiting.delete(wake); resolve(); };
        const timer = setTimeout(wake, Math.min(left, 200));
        this.waiting.add(wake);
      });
    }
  }

  private changed(): void {
    for (const wake of [...this.waiting]) wake();
  }
}

interface DeployFlags {
  name: string;
  /** `--remote`: the source is uploaded and built by the service's data plane (else a local build, pushed). */
  remote?: boolean;
  verbose?: boolean;
  watch: CliWatch;
}

interface DeployOutcome {
  /** What the CLI reports (§6.5 step 5). */
  outcome: 'success' | 'failed' | 'timed out';
  exitCode: 0 | 1;
  deploymentId: string;
  revisionId: string;
  status: string;
  /** `source_config.custom_url` of the final GET, shown as the URL. */
  url: string | null;
  /** The messages of the failure's build_logs call (`BUILD_FAILED` without `--verbose`), as read. */
  failureLogs?: string[];
  deployment: any;
}

const POLL_INTERVAL_MS = 20;
const POLL_TIMEOUT_MS = 60_000;

/** Fails as the CLI does on a non-2xx answer: "<METHOD> <path> failed with status <code>: <body>". */
function ok(method: string, path: string, answer: { status: number; raw: { body: Buffer } }, expected = 200): void {
  expect(answer.status, `${method} ${path} failed with status ${answer.status}: ${answer.raw.body.toString('utf8')}`).toBe(expected);
}

/** The CLI's `deploy`, from the name to the outcome (§6.3-§6.5). */
async function deploy({ name, remote = false, verbose = false, watch }: DeployFlags): Promise<DeployOutcome> {
  // §6.3: look up by name; create if not found (before building), reading `id` only.
  let id = await lookUpByName(cli, name);
  if (!id) {
    const body = `{"name":"${name}","source":"${remote ? 'internal_source' : 'internal_docker'}","source_config":{"deployment_type":"dev"},"source_revision_config":{},"secrets":[]}`;
    const created = await cli('POST', '/v2/deployments', { body });
    ok('POST', '/v2/deployments', created, 201);
    id = created.json.id as string;
    expect(typeof id === 'string' && id.length > 0, 'POST /v2/deployments succeeded but response missing a valid \'id\'').toBe(true);
  }

  // §6.4: the build (not run here), or the archive uploaded to the URL the service issued, is followed by the
  // PATCH that hands it over.
  const patch = remote
    ? `{"revision_source":"internal_source","source_revision_config":{"source_tarball_path":"${await uploadArchive(cli, id, archiveOf(name))}","graph_config_path":"graph.json"},"secrets":[]}`
    : `{"revision_source":"internal_docker","source_revision_config":{"image_uri":"registry.example.com/acme/${name}@sha256:${'ab'.repeat(32)}"},"secrets":[]}`;
  const patched = await cli('PATCH', `/v2/deployments/${id}`, { body: patch });
  ok('PATCH', `/v2/deployments/${id}`, patched);

  // §6.5 step 1: the newest revision.
  const latest = await cli('GET', `/v2/deployments/${id}/revisions?limit=1`);
  ok('GET', `/v2/deployments/${id}/revisions?limit=1`, latest);
  expect(latest.json.resources.length, 'the CLI prints its no-result message and exits 0').toBeGreaterThan(0);
  const rid: string = latest.json.resources[0].id;
  watch.revisionId = rid;

  // §6.5 steps 2-4: poll until a terminal status; the first GET at once; HTTP errors abort.
  const deadline = Date.now() + POLL_TIMEOUT_MS;
  let status = 'UNKNOWN';
  let nextOffset: number | undefined;
  try {
    while (Date.now() < deadline && !watch.stop.signal.aborted) {
      const path = `/v2/deployments/${id}/revisions/${rid}`;
      const polled = await cli('GET', path);
      ok('GET', path, polled);
      status = polled.json?.status ?? 'UNKNOWN';
      watch.saw(status);
      if (remote && verbose && (status === 'AWAITING_BUILD' || status === 'BUILDING')) {
        const body = nextOffset === undefined ? '{"order":"asc","limit":50}' : `{"order":"asc","limit":50,"offset":${nextOffset}}`;
        const page = await cli('POST', `/v1/projects/${id}/revisions/${rid}/build_logs`, { body });
        // Errors are ignored: the next poll asks again.
        if (page.status === 200) {
          watch.print(page.json.logs.map((line: { message: string }) => line.message));
          if (typeof page.json.next_offset === 'number') nextOffset = page.json.next_offset;
        }
      }
      if (TERMINAL_STATUSES.includes(status)) break;
      await sleep(POLL_INTERVAL_MS);
    }
  } finally {
    watch.stop.abort();
  }

  let failureLogs: string[] | undefined;
  if (status === 'BUILD_FAILED' && !verbose) {
    const page = await cli('POST', `/v1/projects/${id}/revisions/${rid}/build_logs`, { body: '{"order":"desc","limit":30}' });
    if (page.status === 200) failureLogs = page.json.logs.map((line: { message: string }) => line.message);
  }

  // §6.5 step 5: the URL, and the outcome.
  const final = await cli('GET', `/v2/deployments/${id}`);
  ok('GET', `/v2/deployments/${id}`, final);
  const failed = ['BUILD_FAILED', 'DEPLOY_FAILED', 'CREATE_FAILED'].includes(status);
  return {
    outcome: status === 'DEPLOYED' ? 'success' : failed ? 'failed' : 'timed out', exitCode: failed ? 1 : 0,
    deploymentId: id, revisionId: rid, status, url: final.json.source_config.custom_url, failureLogs, deployment: final.json,
  };
}

/** The test data plane: the public data-plane routes with a reconcile key, nothing else. */
const plane = restCaller(() => fixture.app.url, () => fixture.keys.plane);

interface Lease {
  leaseId: string;
  deploymentId: string;
  /** Where a remote build's archive downloads from (null for an image). */
  sourceArchiveUrl: string | null;
}

/** Claims until the revision is among the leases (the test's data plane works on that one only). */
async function claim(revisionId: string): Promise<Lease> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const answer = await plane('POST', '/v2/data-plane/claims', { body: { limit: 10 } });
    expect(answer.status).toBe(200);
    const lease = answer.json.leases.find((l: { revision_id: string }) => l.revision_id === revisionId);
    if (lease) return { leaseId: lease.lease_id, deploymentId: lease.deployment_id, sourceArchiveUrl: lease.source_archive_url };
  }
  throw new Error(`revision ${revisionId} was not claimed`);
}

async function report(revisionId: string, leaseId: string, status: string, message?: string): Promise<void> {
  const answer = await plane('POST', `/v2/data-plane/revisions/${revisionId}/status`, { body: { lease_id: leaseId, status, ...(message && { message }) } });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.json.applied).toBe(true);
}

async function appendBuildLog(revisionId: string, leaseId: string, firstLine: number, messages: string[]): Promise<number> {
  const answer = await plane('POST', `/v2/data-plane/revisions/${revisionId}/logs`, {
    body: { lease_id: leaseId, phase: 'build', first_line: firstLine, lines: messages.map((message) => ({ message, level: 'info' })) },
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.json.next_line;
}

async function reportUrl(deploymentId: string, customUrl: string): Promise<void> {
  const answer = await plane('POST', `/v2/data-plane/deployments/${deploymentId}/status`, { body: { status: 'READY', custom_url: customUrl } });
  expect(answer.status, answer.text).toBe(200);
}

/**
 * Runs the CLI's deploy and the data plane's part side by side; the data plane gets the revision the poller
 * watches once the poller has seen it QUEUED, and then its lease. A failure of either stops both.
 */
async function deployWith(flags: Omit<DeployFlags, 'watch'>, dataPlane: (watch: CliWatch, revisionId: string, lease: Lease) => Promise<void>) {
  const watch = new CliWatch();
  const deploying = deploy({ ...flags, watch });
  const planing = (async () => {
    await watch.until(() => watch.seen('QUEUED'), 'the poller to see the revision QUEUED');
    const revisionId = watch.revisionId!;
    const lease = await claim(revisionId);
    // A remote build's data plane fetches the archive the CLI uploaded, with a plain GET; an image needs none.
    if (flags.remote) {
      const archive = await objectRequest('GET', lease.sourceArchiveUrl!);
      expect({ status: archive.status, uploaded: archive.body.equals(archiveOf(flags.name)) }).toEqual({ status: 200, uploaded: true });
    } else expect(lease.sourceArchiveUrl).toBeNull();
    await watch.until(() => watch.seen('AWAITING_BUILD'), 'the poller to see AWAITING_BUILD');
    await dataPlane(watch, revisionId, lease);
  })().catch((error: unknown) => {
    watch.stop.abort();
    throw error;
  });
  const [outcome] = await Promise.all([deploying, planing]);
  return { outcome, watch };
}

/** Reports `status` and waits until the poller has seen it. */
async function step(watch: CliWatch, revisionId: string, leaseId: string, status: string, message?: string): Promise<void> {
  await report(revisionId, leaseId, status, message);
  await watch.until(() => watch.seen(status), `the poller to see ${status}`);
}

/** The statuses in the order the poller saw them, each once (it sees most of them over several polls). */
const inOrder = (statuses: string[]) => statuses.filter((status, i) => status !== statuses[i - 1]);

describe('the CLI\'s `deploy` (local build) while a data plane rolls the revision out', () => {
  it('sees QUEUED, AWAITING_BUILD, BUILDING, DEPLOYING, DEPLOYED in order, succeeds, and shows the URL the data plane reported', async () => {
    const url = 'https://flow-agent.acme.example.com';
    const { outcome, watch } = await deployWith({ name: 'flow-agent' }, async (watched, revisionId, { leaseId, deploymentId }) => {
      await step(watched, revisionId, leaseId, 'BUILDING');
      await step(watched, revisionId, leaseId, 'DEPLOYING');
      await reportUrl(deploymentId, url);
      await report(revisionId, leaseId, 'DEPLOYED');
    });
    expect(inOrder(watch.statuses)).toEqual(['QUEUED', 'AWAITING_BUILD', 'BUILDING', 'DEPLOYING', 'DEPLOYED']);
    expect({ outcome: outcome.outcome, exitCode: outcome.exitCode, status: outcome.status, url: outcome.url })
      .toEqual({ outcome: 'success', exitCode: 0, status: 'DEPLOYED', url });
    // What the user sees next in the deployment: the revision is the active one, and the deployment READY.
    expect(outcome.deployment).toMatchObject({ id: outcome.deploymentId, latest_revision_id: outcome.revisionId, active_revision_id: outcome.revisionId, status: 'READY' });
  });
});

describe('the CLI\'s `deploy --remote` when the build fails', () => {
  it('ends on BUILD_FAILED with exit code 1, and reads the last 30 build log lines newest first', async () => {
    const lines = Array.from({ length: 45 }, (_, i) => `#${i + 1} npm ci: step ${i + 1} of 45`);
    const { outcome, watch } = await deployWith({ name: 'flow-broken', remote: true }, async (watched, revisionId, { leaseId }) => {
      await step(watched, revisionId, leaseId, 'BUILDING');
      let next = await appendBuildLog(revisionId, leaseId, 0, lines.slice(0, 20));
      next = await appendBuildLog(revisionId, leaseId, next, lines.slice(next));
      expect(next).toBe(45);
      await report(revisionId, leaseId, 'BUILD_FAILED', 'npm ci exited with code 1');
    });
    expect(inOrder(watch.statuses)).toEqual(['QUEUED', 'AWAITING_BUILD', 'BUILDING', 'BUILD_FAILED']);
    expect({ outcome: outcome.outcome, exitCode: outcome.exitCode, status: outcome.status }).toEqual({ outcome: 'failed', exitCode: 1, status: 'BUILD_FAILED' });
    expect(outcome.failureLogs).toEqual(lines.slice(15).reverse());
    // Without --verbose nothing was tailed; the deployment has no active revision and no URL.
    expect(watch.printed).toEqual([]);
    expect({ url: outcome.url, active: outcome.deployment.active_revision_id }).toEqual({ url: null, active: null });
  });
});

describe('the CLI\'s `deploy --remote --verbose` tailing the build', () => {
  it('prints every build log line exactly once, in order, across polls, while the data plane is still appending', async () => {
    // Batches of several sizes: some fit one build_logs page of 50, some take several polls to read.
    const batches = [3, 120, 1, 57, 2, 50];
    const lines = Array.from({ length: batches.reduce((a, b) => a + b) }, (_, i) => `Step ${i}: RUN build part ${i}`);
    const url = 'https://flow-tail.acme.example.com';
    const { outcome, watch } = await deployWith({ name: 'flow-tail', remote: true, verbose: true }, async (watched, revisionId, { leaseId, deploymentId }) => {
      await step(watched, revisionId, leaseId, 'BUILDING');
      let sent = 0;
      for (const [i, size] of batches.entries()) {
        const before = watched.printed.length;
        // The fourth batch is sent as a data plane retrying after a timeout would: from two lines it had sent already.
        const from = i === 3 ? sent - 2 : sent;
        sent = await appendBuildLog(revisionId, leaseId, from, lines.slice(from, sent + size));
        // The next batch comes once the CLI has read some of this one (not necessarily all: it may be mid-way).
        await watched.until(() => watched.printed.length > before, `the CLI to print a line of batch ${i + 1}`);
      }
      await watched.until(() => watched.printed.length >= lines.length, 'the CLI to print every line');
      await step(watched, revisionId, leaseId, 'DEPLOYING');
      await reportUrl(deploymentId, url);
      await report(revisionId, leaseId, 'DEPLOYED');
    });
    expect(watch.printed).toEqual(lines);
    // Read across polls, not in one go: at least one page after each batch was sent, before the next.
    expect(watch.pagesWithLines).toBeGreaterThanOrEqual(batches.length);
    expect(inOrder(watch.statuses)).toEqual(['QUEUED', 'AWAITING_BUILD', 'BUILDING', 'DEPLOYING', 'DEPLOYED']);
    expect({ outcome: outcome.outcome, exitCode: outcome.exitCode, url: outcome.url }).toEqual({ outcome: 'success', exitCode: 0, url });
  });
});
