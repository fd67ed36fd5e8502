// The typed client of examples/frontend, as CI's guard for frontends: its generated types and trusted-documents
// manifest are what codegen makes of today's schema.graphql, the example type-checks against them, and its
// script lists deployments from a real gateway, sending document text (TRUSTED_DOCUMENTS=off) or only
// document ids to a gateway that requires its manifest, then prints the live changes a subscription brings, or
// refreshes its view with queries sent by GET and revalidated (304 while nothing changed, the change once one
// is made). A schema change that breaks a frontend fails here.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { generate } from '@graphql-codegen/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import codegenConfig from '../examples/frontend/codegen.ts';
import { PROJECT_ROOT } from '../src/config.ts';
import { schema } from '../src/graphql/schema.ts';
import { loadTrustedDocuments } from '../src/graphql/trusted-documents.ts';
import type { RunningApp } from './support/app-server.ts';
import { startDemoApp, type DemoApp } from './support/demo-app.ts';
import { deploymentRecord, importDeployments, newDeploymentId } from './support/live-data.ts';
import { DEMO_TENANT_ID } from '../src/demo/demo-dataset.ts';
import { startScript, type ScriptRun } from './support/script-run.ts';

const EXAMPLE = path.join(PROJECT_ROOT, 'examples/frontend');
const GENERATED = path.join(EXAMPLE, 'src/gql');
const MANIFEST = path.join(GENERATED, 'persisted-documents.json');

describe('the generated client code', () => {
  it('is what codegen makes of the current schema.graphql (run `npm run codegen` after changing the schema or an operation)', async () => {
    const outputs: Array<{ filename: string; content: string }> = await generate({ ...codegenConfig, silent: true }, false);
    const generated = Object.fromEntries(outputs.map(({ filename, content }) => [path.relative(EXAMPLE, path.resolve(EXAMPLE, filename)), content]));
    const committed = Object.fromEntries(fs.readdirSync(GENERATED).map((name) => [`src/gql/${name}`, fs.readFileSync(path.join(GENERATED, name), 'utf8')]));
    expect(Object.keys(committed).sort()).toEqual(Object.keys(generated).sort());
    for (const [file, content] of Object.entries(generated)) expect(committed[file], `${file} is stale: run npm run codegen`).toBe(content);
  });

  it('type-checks with the example that uses it', () => {
    const tsc = spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'node_modules/typescript/bin/tsc'), '-p', EXAMPLE], { encoding: 'utf8', timeout: 120_000 });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });
});

/** Runs the example's script as a user does. */
const startDashboard = (env: Record<string, string>, args: string[]): ScriptRun => startScript(path.join(EXAMPLE, 'src/dashboard.ts'), args, env);

/** Runs the example's script once (`--once`: no watching), and returns what it printed. */
const runDashboard = (env: Record<string, string>, args: string[] = []) => startDashboard(env, [...args, '--once']).ended;

describe('the dashboard script', () => {
  let demo: DemoApp;
  let requiring: RunningApp;
  /** The names of the newest deployments whose name contains `filter`, as the gateway itself lists them. */
  async function newest(filter = ''): Promise<string[]> {
    const { body } = await demo.app.graphql('query ($filter: DeploymentFilter) { deployments(limit: 10, filter: $filter) { resources { name } } }', { 'x-api-key': demo.key }, { filter: { nameContains: filter } });
    return body.data.deployments.resources.map((deployment: { name: string }) => deployment.name);
  }

  beforeAll(async () => {
    demo = await startDemoApp();
    requiring = await demo.startAnother({ trustedDocuments: { mode: 'require', manifest: loadTrustedDocuments(MANIFEST, schema) } });
  });
  afterAll(async () => {
    await demo?.close();
  });

  /** How many requests to /graphql `url`'s gateway answered, by method and status (its /metrics). */
  async function graphqlRequests(url: string): Promise<Record<string, number>> {
    const text = await (await fetch(`${url}/metrics`)).text();
    const counts: Record<string, number> = {};
    for (const [, method, status, count] of text.matchAll(/^http_requests_total\{route="\/graphql",method="(\w+)",status="(\d+)"\} (\d+)$/gm)) {
      counts[`${method} ${status}`] = Number(count);
    }
    return counts;
  }
  const requestsSince = (before: Record<string, number>, after: Record<string, number>) => Object.fromEntries(
    Object.entries(after).map(([request, count]) => [request, count - (before[request] ?? 0)]).filter(([, count]) => count !== 0),
  );

  const listed = (stdout: string) => stdout.split('\n').filter((line) => /^ {2}[A-Z_]+ +(PROD|DEV|DEV_FREE) /.test(line)).map((line) => line.trim().split(/\s+/)[2]);

  it('lists the newest deployments and the detail of the newest, sending the documents in full', async () => {
    const { code, stdout, stderr } = await runDashboard({ GRAPHQL_URL: `${demo.app.url}/graphql`, API_KEY: demo.key });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^60 deployments of Demo Workspace, newest first:\n/);
    const names = await newest();
    expect(listed(stdout)).toEqual(names);
    expect(stdout).toContain('  … and 50 more\n');
    expect(stdout).toMatch(new RegExp(`\\nNewest: ${names[0]} \\([0-9a-f-]{36}\\), created .+\\n  source +.+\\n  resources +cpu .+\\n  tags +.+\\n  revisions +\\d+`));
  });

  it("runs on a gateway that requires its trusted documents, sending only the ids of the example's manifest", async () => {
    const { code, stdout, stderr } = await runDashboard({ GRAPHQL_URL: `${requiring.url}/graphql`, API_KEY: demo.key, TRUSTED_DOCUMENTS: 'require' }, ['prod']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\d+ deployments of Demo Workspace whose name contains "prod", newest first:\n/);
    expect(listed(stdout)).toEqual(await newest('prod'));
    expect(stdout).toContain('\nNewest: ');
  });

  it('says what to do when it sends document text to a gateway that requires ids', async () => {
    const { code, stderr } = await runDashboard({ GRAPHQL_URL: `${requiring.url}/graphql`, API_KEY: demo.key });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^HTTP 400: This server runs only its trusted documents.+\[PERSISTED_QUERY_REQUIRED\]\nThe gateway runs only trusted documents: run this with TRUSTED_DOCUMENTS=require too\.\n$/);
  });

  it.each(['off', 'require'] as const)('then prints each change as it happens, until Ctrl-C (trusted documents %s)', async (mode) => {
    const url = mode === 'off' ? demo.app.url : requiring.url;
    const run = startDashboard({ GRAPHQL_URL: `${url}/graphql`, API_KEY: demo.key, TRUSTED_DOCUMENTS: mode }, []);
    await run.printed(/\nWatching for changes \(Ctrl-C to stop\)…\n/);
    const id = newDeploymentId();
    await importDeployments(demo.db.orm.em, demo.cipher, [deploymentRecord(id, DEMO_TENANT_ID, `example-live-${mode}`, 'AWAITING_DATABASE')]);
    await run.printed(new RegExp(`\\n {2}CREATED +AWAITING_DATABASE +DEV +example-live-${mode} `));
    await importDeployments(demo.db.orm.em, demo.cipher, [deploymentRecord(id, DEMO_TENANT_ID, `example-live-${mode}`, 'READY')]);
    await run.printed(new RegExp(`\\n {2}UPDATED +READY +DEV +example-live-${mode} `));
    run.signal('SIGINT');
    const { code, stderr } = await run.ended;
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it.each(['off', 'require'] as const)('sends its queries by GET, and a refresh gets 304 until a change, then shows it (trusted documents %s)', async (mode) => {
    const url = mode === 'off' ? demo.app.url : requiring.url;
    const name = `example-refresh-${mode}`;
    const id = newDeploymentId();
    await importDeployments(demo.db.orm.em, demo.cipher, [deploymentRecord(id, DEMO_TENANT_ID, name, 'AWAITING_DATABASE')]);
    const before = await graphqlRequests(url);
    const run = startDashboard({ GRAPHQL_URL: `${url}/graphql`, API_KEY: demo.key, TRUSTED_DOCUMENTS: mode }, [name, '--refresh=0.2']);
    const rounds = () => [...run.stdout.matchAll(/\nRefresh (\d+): (\d+) of (\d+) reads unchanged/g)].map((match) => match.slice(1).map(Number));
    const [first, refreshed] = (await run.printed(/\nRefresh 1: .+\n/)).split('\n\nRefreshing every 0.2 s (Ctrl-C to stop)…\n\n');
    // The first view's two reads (the list, the newest's detail), read again: both 304, the same view shown.
    expect(first).toMatch(new RegExp(`^1 deployments of Demo Workspace whose name contains "${name}", newest first:\n {2}AWAITING_DATABASE +DEV +${name} .+\n\nNewest: ${name} \\(${id}\\)`));
    expect(refreshed).toBe(`${first}\nRefresh 1: 2 of 2 reads unchanged (304 Not Modified)\n`);

    // A change made meanwhile: a later refresh shows it, read in full; one that starts after the change has
    // been committed (two rounds after the last one printed) must.
    await importDeployments(demo.db.orm.em, demo.cipher, [deploymentRecord(id, DEMO_TENANT_ID, name, 'READY')]);
    const committedAfter = rounds().length;
    const stdout = await run.printed(new RegExp(`\\nRefresh ${committedAfter + 2}: .+\\n`));
    // views[n - 1] is what refresh n showed; rounds()[n - 1] how many of its reads were unchanged.
    const views = stdout.split(/\nRefresh \d+: .+\n/);
    const showsChange = (round: number) => new RegExp(`\n {2}READY +DEV +${name} `).test(views[round - 1]!);
    expect(showsChange(committedAfter + 2), stdout).toBe(true);
    const shownFirstIn = rounds().findIndex((_, index) => showsChange(index + 1)) + 1;
    const [, unchanged] = rounds()[shownFirstIn - 1]!;
    if (unchanged === 0) {
      expect(rounds()[shownFirstIn - 1], 'the change came in full: nothing of it was unchanged').toEqual([shownFirstIn, 0, 2]);
    } else {
      // The change committed between this refresh's two reads: the list still matched its tag (304), the detail
      // came in full and showed it; the next refresh then reads the list in full and the detail is unchanged.
      expect(rounds()[shownFirstIn - 1], 'the read after the commit came in full').toEqual([shownFirstIn, 1, 2]);
      await run.printed(new RegExp(`\\nRefresh ${shownFirstIn + 1}: .+\\n`));
      expect(rounds()[shownFirstIn], 'the list, changed, came in full the round after').toEqual([shownFirstIn + 1, 1, 2]);
    }
    run.signal('SIGINT');
    const { code, stderr } = await run.ended;
    expect(stderr).toBe('');
    expect(code).toBe(0);

    // On the gateway: every read came by GET (none by POST), and the unchanged ones were answered 304.
    const requests = requestsSince(before, await graphqlRequests(url));
    expect(Object.keys(requests).filter((request) => !request.startsWith('GET '))).toEqual([]);
    expect(requests['GET 304']).toBe(rounds().reduce((sum, [, unchanged]) => sum + unchanged!, 0));
    expect(requests['GET 304']).toBeGreaterThanOrEqual(2);
    expect(requests['GET 200']).toBeGreaterThanOrEqual(4);
  });
});
