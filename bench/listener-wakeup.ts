// npm run bench:listener-wakeup -- [--revisions 200] [--gap-ms 25]
// How long a data plane takes to learn of a revision queued for it (issue 53, item 4): two listeners, a data plane
// for each (a key bound to it), each subscribed to `dataPlaneWakeUps` on a gateway of its own (two gateways in
// this process, each with its own LISTEN connection, on one database), and each claiming until nothing is left
// whenever it is woken. A writer creates `revisions` deployments (each one QUEUED revision), alternately on the two
// listeners, one at a time through the other gateway, `gap-ms` apart; for each revision, the time from its
// create's commit to the claim's answer reaching its data plane. The commit is bracketed: the create's request was
// sent before it (an upper bound of the latency) and its answer arrives after it (a lower bound). Every revision
// must be claimed exactly once, by its own listener's data plane (else the run stops: a bug, not a number).
// In a database of its own, created from DATABASE_URL (any database of the server) and dropped afterwards.
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { createApp } from '../src/app.ts';
import { DatabaseNotifications } from '../src/db/database-notifications.ts';
import { createDatabaseIfMissing, migrate } from '../src/db/database.ts';
import { createOrmConfig, type AppOrm } from '../src/db/orm-config.ts';
import { importDocument } from '../src/import/importer.ts';
import { FEED_CHANNELS } from '../src/modules/deployments/live/deployment-change-feed.ts';
import { entities } from '../src/modules/entities.ts';
import { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import { REVOCATION_CHANNEL } from '../src/modules/tenancy/api-key-revocations.ts';
import { issueApiKey } from '../src/modules/tenancy/api-key.service.ts';
import { readServerSentEvents } from '../test/support/server-sent-events.ts';

const { values } = parseArgs({ options: { revisions: { type: 'string', default: '200' }, 'gap-ms': { type: 'string', default: '25' } } });
const [REVISIONS, GAP_MS] = [Number(values.revisions), Number(values['gap-ms'])];
const maintenanceUrl = process.env.DATABASE_URL;
if (!maintenanceUrl) throw new Error('set DATABASE_URL to any database of the PostgreSQL server to measure on');

const name = `bench_listener_wakeup_${randomBytes(4).toString('hex')}`;
await createDatabaseIfMissing(maintenanceUrl, name);
const url = new URL(maintenanceUrl);
url.pathname = `/${name}`;
const orm = (await MikroORM.init(createOrmConfig({ entities, clientUrl: url.toString(), timeouts: { connectTimeoutMs: 3000, statementTimeoutMs: 0 } }))) as unknown as AppOrm;

const TENANT = randomUUID();
const cipher = new SecretCipher(randomBytes(32));
const gateways: { url: string; close: () => Promise<void> }[] = [];

async function startGateway(): Promise<{ url: string; close: () => Promise<void> }> {
  const notifications = new DatabaseNotifications([REVOCATION_CHANNEL, ...FEED_CHANNELS]);
  await notifications.start(url.toString());
  const app = createApp({ orm, cipher, notifications });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    close: async () => {
      app.deploymentChanges.stop();
      app.server.closeAllConnections();
      await new Promise((resolve) => app.server.close(resolve));
      await notifications.stop();
    },
  };
}

async function call(base: string, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${base}${path}`, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

const CLAIM = 'mutation BenchClaim { claimRevisions(input: { limit: 100 }) { leases { revisionId } } }';

/** A data plane: subscribed on `base`, claiming until nothing is left when woken; when it claimed each revision. */
async function dataPlane(base: string, key: string, claimedAt: Map<string, { at: number; by: string }>, label: string, stop: AbortSignal): Promise<void> {
  const response = await fetch(`${base}/graphql`, {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': key },
    body: JSON.stringify({ query: 'subscription { dataPlaneWakeUps { reason } }' }), signal: stop,
  });
  let woken = false;
  let claiming = false;
  const claimAll = async () => {
    if (claiming) { woken = true; return; }
    claiming = true;
    do {
      woken = false;
      for (;;) {
        const { data } = await call(base, key, 'POST', '/graphql', { query: CLAIM });
        const leases = data.claimRevisions.leases as { revisionId: string }[];
        const at = performance.now();
        for (const { revisionId } of leases) {
          if (claimedAt.has(revisionId)) throw new Error(`revision ${revisionId} claimed twice`);
          claimedAt.set(revisionId, { at, by: label });
        }
        if (leases.length === 0) break;
      }
    } while (woken);
    claiming = false;
  };
  try {
    await readServerSentEvents(response.body!, (event) => {
      if (event.event !== 'next') return;
      // A claim cut short by the end of the run is no failure; any other stops the run.
      claimAll().catch((error: unknown) => {
        if (stop.aborted) return;
        console.error(error);
        process.exit(1);
      });
    });
  } catch (error) {
    if (!stop.aborted) throw error;
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const summary = (samples: number[]) => {
  const sorted = samples.toSorted((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1)! };
};

try {
  await migrate(orm);
  await importDocument(orm.em.fork(), JSON.stringify({ tenants: [{ id: TENANT, name: 'bench-listeners' }] }), cipher);
  const writer = (await issueApiKey(orm.em.fork(), { tenantIds: [TENANT], name: 'writer', mayReadSecrets: false, mayWrite: true })).key;
  gateways.push(await startGateway(), await startGateway());
  const [a, b] = gateways as [typeof gateways[0], typeof gateways[0]];
  const listeners = [];
  for (const computeId of ['cluster-x', 'cluster-y']) {
    listeners.push((await call(a.url, writer, 'POST', '/v2/listeners', { compute_type: 'k8s', compute_id: computeId, compute_config: { k8s_namespaces: ['apps'] } })).id as string);
  }
  const planeKeys = await Promise.all(listeners.map(async (listenerId, n) =>
    (await issueApiKey(orm.em.fork(), { tenantIds: [TENANT], name: `plane-${n}`, mayReadSecrets: false, mayReconcile: true, listenerId })).key));
  const claimedAt = new Map<string, { at: number; by: string }>();
  const stop = new AbortController();
  // Plane X listens on gateway A, plane Y on gateway B; the writer alternates gateways, always the other one's.
  const planes = [dataPlane(a.url, planeKeys[0]!, claimedAt, 'x', stop.signal), dataPlane(b.url, planeKeys[1]!, claimedAt, 'y', stop.signal)];
  await new Promise((resolve) => setTimeout(resolve, 500));
  const created: { revisionId: string; sent: number; answered: number; listener: string }[] = [];
  for (let n = 0; n < REVISIONS; n++) {
    const onX = n % 2 === 0;
    const sent = performance.now();
    const deployment = await call(onX ? b.url : a.url, writer, 'POST', '/v2/deployments', {
      name: `wakeup-${n}`, source: 'external_docker', secrets: [], source_revision_config: { image_uri: 'nginx:1.27' },
      source_config: { listener_id: listeners[onX ? 0 : 1], listener_config: { k8s_namespace: 'apps' } },
    });
    created.push({ revisionId: deployment.latest_revision_id, sent, answered: performance.now(), listener: onX ? 'x' : 'y' });
    await new Promise((resolve) => setTimeout(resolve, GAP_MS));
  }
  for (let waited = 0; claimedAt.size < REVISIONS && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  stop.abort();
  await Promise.allSettled(planes);
  const missing = created.filter((revision) => !claimedAt.has(revision.revisionId));
  const wrong = created.filter((revision) => claimedAt.get(revision.revisionId)?.by !== revision.listener);
  if (missing.length > 0 || wrong.length > 0 || claimedAt.size !== REVISIONS) {
    throw new Error(`${missing.length} revisions not claimed, ${wrong.length} claimed by the wrong listener's data plane, ${claimedAt.size} claimed of ${REVISIONS}`);
  }
  const fromAnswer = summary(created.map((revision) => claimedAt.get(revision.revisionId)!.at - revision.answered));
  const fromSent = summary(created.map((revision) => claimedAt.get(revision.revisionId)!.at - revision.sent));
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  console.log(`${REVISIONS} revisions, two listeners, two data planes on two gateways, ${GAP_MS} ms between creates; every revision claimed once, by its listener's data plane.`);
  console.log('commit -> claim answered at the data plane | p50 | p99 | max');
  console.log('---|---|---|---');
  console.log(`lower bound (from the create's answer) | ${ms(fromAnswer.p50)} | ${ms(fromAnswer.p99)} | ${ms(fromAnswer.max)}`);
  console.log(`upper bound (from the create's request) | ${ms(fromSent.p50)} | ${ms(fromSent.p99)} | ${ms(fromSent.max)}`);
} finally {
  for (const gateway of gateways) await gateway.close();
  await orm.close(true);
  const admin = new pg.Client({ connectionString: maintenanceUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}
