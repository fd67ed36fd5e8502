// The data-plane simulator of examples/data-plane, run as a newcomer runs it (`npm run example:data-plane`)
// against a real gateway: a deployment created over REST gets its revision walked to DEPLOYED, reported in order
// in the simulator's output, with build logs the CLI reads and the deployment READY at its URL; the lease is
// renewed when the steps are long next to it; SIGINT/SIGTERM end it cleanly (exit 0) after the revisions in
// progress; a missing or wrong key is said plainly. Its GraphQL documents are valid against today's schema.
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENTS } from '../examples/data-plane/src/operations.ts';
import { createApp } from '../src/app.ts';
import { PROJECT_ROOT } from '../src/config.ts';
import { schema } from '../src/graphql/schema.ts';
import { startFixtureApp, type FixtureApp } from './support/fixture-app.ts';
import { ACME, newCipher } from './support/fixtures.ts';
import { startScript, type ScriptRun } from './support/script-run.ts';
import { restCaller } from './support/write-calls.ts';
import { newListener, planeKey, queuedOn } from './support/listener-planes.ts';

const SIMULATOR = path.join(PROJECT_ROOT, 'examples/data-plane/src/simulator.ts');

let fixture: FixtureApp<'writer' | 'plane'>;
beforeAll(async () => {
  fixture = await startFixtureApp([], {
    writer: { tenants: [ACME], mayWrite: true },
    plane: { tenants: [ACME], mayReconcile: true },
  }, {}, { live: true });
});
afterAll(() => fixture?.close());

const call = restCaller(() => fixture.app.url, () => fixture.keys.writer);

type Run = ScriptRun;

/** `npm run example:data-plane` with `env` (and nothing else of this process's environment but PATH). */
const startSimulator = (env: Record<string, string>): Run => startScript(SIMULATOR, [], env);

/** Runs the simulator for the rest of a test (from its first line on), and kills it if the test did not stop it. */
async function withSimulator<T>(env: Record<string, string>, use: (run: Run) => Promise<T>): Promise<T> {
  const run = startSimulator(env);
  let done = false;
  void run.ended.then(() => { done = true; });
  try {
    await run.printed(/ Data-plane SIMULATOR \(builds and runs nothing\): claiming queued revisions from /);
    return await use(run);
  } finally {
    if (!done) run.signal('SIGKILL');
  }
}

let sequence = 0;
/** A new deployment of ACME's, created as a client creates one; its id and its QUEUED revision's. */
async function newDeployment(): Promise<{ id: string; revisionId: string }> {
  const created = await call('POST', '/v2/deployments', {
    body: { name: `simulated-${++sequence}-${Date.now()}`, source: 'external_docker', source_config: {}, source_revision_config: { image_uri: 'nginx:1.27' }, secrets: [] },
  });
  expect(created.status).toBe(201);
  return { id: created.json.id, revisionId: created.json.latest_revision_id };
}

const revisionStatus = async (id: string, revisionId: string): Promise<string> =>
  (await call('GET', `/v2/deployments/${id}/revisions/${revisionId}`)).json.status;

/** Polls (every 100 ms, at most `ms`: a bound on the wait, never a speed claim) until the revision has `status`. */
async function untilRevision(id: string, revisionId: string, status: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  let seen = await revisionStatus(id, revisionId);
  while (seen !== status) {
    if (Date.now() > deadline) throw new Error(`revision ${revisionId} is ${seen} after ${ms} ms, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    seen = await revisionStatus(id, revisionId);
  }
}

/** What the simulator printed about one revision, in order (the status after the time and the revision's name). */
const reportedSteps = (stdout: string, revisionId: string) =>
  stdout.split('\n').filter((line) => line.includes(` revision ${revisionId.slice(0, 8)} of deployment `)).map((line) => line.split(': ').slice(1).join(': '));

describe('npm run example:data-plane', () => {
  it('started for a listener, builds that listener\'s revisions, woken without asking in a loop, and keeps it online', async () => {
    const listenerId = await newListener(call, fixture.keys.writer);
    const key = await planeKey(fixture.db.orm.em, [ACME], listenerId);
    const claims = async () => Number(/graphql_operation_duration_seconds_count\{operation="ClaimRevisions",type="mutation"\} (\d+)/.exec(await (await fetch(`${fixture.app.url}/metrics`)).text())?.[1] ?? 0);
    await withSimulator({ GATEWAY_URL: fixture.app.url, RECONCILE_KEY: key, STEP_MS: '1500', DATA_PLANE_VERSION: '2.1.0' }, async (run) => {
      expect(run.stdout).toContain(`for listener ${listenerId} (version 2.1.0)`);
      const listener = (await call('GET', `/v2/listeners/${listenerId}`)).json;
      expect(listener.version).toBe('2.1.0');
      // The steps of one revision take five STEP_MS (7.5 s): a simulator asking every second would claim seven
      // times or more meanwhile.
      const before = await claims();
      const [revisionId] = await queuedOn(call, fixture.keys.writer, listenerId, 1);
      const [{ deployment_id: id }] = await fixture.db.query<{ deployment_id: string }>('select deployment_id from revision where id = $1', [revisionId]) as [{ deployment_id: string }];
      await untilRevision(id, revisionId!, 'DEPLOYED');
      await run.printed(new RegExp(`deployment ${id.slice(0, 8)}: deployment reported READY`));
      // The claim it was woken for, the one its revision's end woke (which found nothing), and perhaps the answer
      // to its start's own wake-up (SUBSCRIBED), if that came after `before` was read.
      expect(await claims() - before).toBeLessThanOrEqual(3);
      const online = await fixture.app.graphql('query ($id: ID!) { listener(id: $id) { online version } }', { 'x-api-key': fixture.keys.writer }, { id: listenerId });
      expect(online.body.data.listener).toEqual({ online: true, version: '2.1.0' });
      run.signal('SIGINT');
      expect((await run.ended).code).toBe(0);
    });
  });

  it('walks a new deployment\'s revision to DEPLOYED, step by step, and reports the deployment READY at its URL; Ctrl-C ends it', async () => {
    await withSimulator({ GATEWAY_URL: fixture.app.url, RECONCILE_KEY: fixture.keys.plane, STEP_MS: '50' }, async (run) => {
      const { id, revisionId } = await newDeployment();
      await untilRevision(id, revisionId, 'DEPLOYED');
      await run.printed(new RegExp(`deployment ${id.slice(0, 8)}: deployment reported READY`));

      const deployment = (await call('GET', `/v2/deployments/${id}`)).json;
      expect(deployment).toMatchObject({ status: 'READY', active_revision_id: revisionId, latest_revision_id: revisionId });
      expect(deployment.source_config.custom_url).toBe(`https://${id}.example.invalid`);
      expect(reportedSteps(run.stdout, revisionId)).toEqual([
        'claimed (AWAITING_BUILD)', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED', `deployment reported READY at https://${id}.example.invalid`,
      ]);
      // The build log, as the maker's CLI reads it while it waits (its two appends numbered on from each other).
      const logs = await call('POST', `/v1/projects/${id}/revisions/${revisionId}/build_logs`, { body: { order: 'asc', limit: 50 } });
      expect(logs.status).toBe(200);
      expect(logs.json.logs.map((line: { line: number }) => line.line)).toEqual([0, 1, 2, 3, 4]);
      expect(logs.json.logs.every((line: { message: string }) => line.message.startsWith('[simulator] '))).toBe(true);
      // The running service's log, as the CLI's `deploy logs` reads it (newest first), and with a level.
      const runtime = await call('POST', `/v1/projects/${id}/deploy_logs`, { body: { limit: 100, order: 'desc' } });
      expect(runtime.json.logs.map((line: { level: string; line: number }) => `${line.line} ${line.level}`)).toEqual(['2 WARNING', '1 DEBUG', '0 INFO']);
      expect((await call('POST', `/v1/projects/${id}/deploy_logs`, { body: { level: 'WARNING' } })).json.logs).toHaveLength(1);
      // And whoever reads the revision over GraphQL is told it was simulated.
      const read = await fixture.app.graphql('query ($id: ID!, $r: ID!) { deployment(id: $id) { revision(id: $r) { status statusMessage } } }',
        { 'x-api-key': fixture.keys.writer }, { id, r: revisionId });
      expect(read.body.data.deployment.revision).toEqual({ status: 'DEPLOYED', statusMessage: 'Simulated by examples/data-plane: nothing was built or run.' });

      run.signal('SIGINT');
      const { code, stdout, stderr } = await run.ended;
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toMatch(/ SIGINT: claiming nothing more; finishing 0 revision\(s\) in progress .*\n.* Data-plane SIMULATOR stopped\.\n$/);
    });
  });

  it('on SIGTERM claims nothing more, finishes the revision in progress, and exits 0', async () => {
    await withSimulator({ GATEWAY_URL: fixture.app.url, RECONCILE_KEY: fixture.keys.plane, STEP_MS: '300' }, async (run) => {
      const { id, revisionId } = await newDeployment();
      await run.printed(new RegExp(`revision ${revisionId.slice(0, 8)} of deployment ${id.slice(0, 8)}: BUILDING\\n`));
      run.signal('SIGTERM');
      await run.printed(/ SIGTERM: claiming nothing more; finishing 1 revision\(s\) in progress /);
      // Created while the simulator finishes: it claims nothing more, so this one stays QUEUED.
      const later = await newDeployment();
      const { code, stdout, stderr } = await run.ended;
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(reportedSteps(stdout, revisionId).slice(-2)).toEqual(['DEPLOYED', `deployment reported READY at https://${id}.example.invalid`]);
      expect(await revisionStatus(id, revisionId)).toBe('DEPLOYED');
      expect(await revisionStatus(later.id, later.revisionId)).toBe('QUEUED');
    });
  });

  it('renews the lease while it waits when STEP_MS is long next to the lease, so the revision is never lost', async () => {
    // The same database behind a gateway whose leases last one second: each step (1.2 s) outlives a lease.
    const shortLeases = createApp({ orm: fixture.db.orm, cipher: newCipher(), revisionLeaseSeconds: 1 });
    await new Promise<void>((resolve) => shortLeases.server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(shortLeases.server.address() as AddressInfo).port}`;
      await withSimulator({ GATEWAY_URL: url, RECONCILE_KEY: fixture.keys.plane, STEP_MS: '1200' }, async (run) => {
        const { id, revisionId } = await newDeployment();
        await untilRevision(id, revisionId, 'DEPLOYED');
        expect(reportedSteps(run.stdout, revisionId).slice(0, 5)).toEqual(['claimed (AWAITING_BUILD)', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED']);
        run.signal('SIGTERM');
        expect((await run.ended).code).toBe(0);
      });
    } finally {
      shortLeases.deploymentChanges.stop();
      shortLeases.server.closeAllConnections();
      await new Promise((resolve) => shortLeases.server.close(resolve));
    }
  });

  it('says what is wrong, and exits 1, without RECONCILE_KEY or with a key that is not a data plane\'s', async () => {
    const missing = await startSimulator({ GATEWAY_URL: fixture.app.url }).ended;
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^Data-plane SIMULATOR: RECONCILE_KEY is not set: give the simulator a data plane's API key, one issued with `npm run apikey -- create --tenant <tenant id> --reconcile`/);

    const writer = await startSimulator({ GATEWAY_URL: fixture.app.url, RECONCILE_KEY: fixture.keys.writer }).ended;
    expect(writer.code).toBe(1);
    expect(writer.stderr).toMatch(/This API key is not a data plane's.*\[FORBIDDEN\]\nRECONCILE_KEY must be a data plane's key: `npm run apikey -- create --tenant <tenant id> --reconcile`/);
  });
});

describe('the simulator\'s GraphQL documents (examples/data-plane/src/operations.ts)', () => {
  it.each(Object.entries(DOCUMENTS))('%s is valid against the schema', (_name, document) => {
    expect(validate(schema, parse(document)).map((error) => error.message)).toEqual([]);
  });
});
