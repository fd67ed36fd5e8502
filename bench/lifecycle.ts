// The revision lifecycle's measurements (issue 43, Measure), a group of `npm run bench` (run.ts):
//
// 1. **Report → event.** With `subscriptions` revisionUpdated subscriptions open (SSE, as a waiting client opens
//    them), a data plane reports statuses one at a time through GraphQL, each report waiting for its event before
//    the next; for every event, the time from the report's commit to the event reaching its client. The commit is
//    bracketed: the report's HTTP answer arrives after its commit (the service answers once the transaction has
//    committed), so "after the answer" is a lower bound; the event's `at` is the revision's `updated_at`, the
//    report transaction's start (PostgreSQL's now()), before its commit, so "after `at`" is an upper bound. The
//    bench and PostgreSQL share a machine and a clock. Two cases: one subscription per deployment (each report
//    reaches one client), and every subscription on one deployment (each report reaches all of them).
// 2. **Claims per second.** `queue` QUEUED revisions (one per deployment), and one or two data planes (their own
//    keys) claiming at once, each one claim at a time through GraphQL, until the queue is empty; the revisions
//    claimed per second over the whole queue, and each claim's latency. Every revision must be claimed exactly
//    once (else the run stops: that is a bug, not a number). Between runs the queue is put back (statuses to
//    QUEUED, leases deleted, the tables vacuumed), so each run starts from the same table.
//
// Everything happens in a tenant of its own (LIFECYCLE_TENANT), emptied before and after, so the big tenant the
// reads measure keeps exactly what `npm run bench:data` loaded. Its queue is newer than every revision of the
// dataset, whose 20 tenants also hold QUEUED revisions nobody claims (the dataset draws statuses at random).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { importDocument } from '../src/import/importer.ts';
import type { SecretCipher } from '../src/modules/secrets/secret-cipher.ts';
import { issueApiKey } from '../src/modules/tenancy/api-key.service.ts';
import { BENCH_TENANTS, tenantId } from './dataset.ts';
import { median } from './service-load.ts';
import { emptyTenant } from './write-tenant.ts';

/** The tenant after the write scenarios' (bench/write-tenant.ts). */
export const LIFECYCLE_TENANT = tenantId(BENCH_TENANTS + 1);

export interface LifecycleKeys {
  /** Two data planes' keys (--reconcile). */
  planes: [string, string];
  /** A key that may write: the deployments of the latency cases are created through the API, as a client creates them. */
  writer: string;
  /** Keys the subscriptions are spread over, `subscriptionsPerKey` each (SUBSCRIPTIONS_PER_KEY). */
  watchers: string[];
}

/** The tenant, emptied (of a run that stopped half-way), and its keys. `em`: any EntityManager of the database. */
export async function prepareLifecycleTenant(em: EntityManager, subscriptions: number, subscriptionsPerKey: number): Promise<LifecycleKeys> {
  await em.getConnection().execute(`insert into tenant (id, name, created_at, updated_at) values (?, 'bench-lifecycle', now(), now()) on conflict (id) do nothing`, [LIFECYCLE_TENANT]);
  await emptyTenant(em, LIFECYCLE_TENANT);
  const issue = async (name: string, rights: { mayWrite?: boolean; mayReconcile?: boolean }) =>
    (await issueApiKey(em.fork(), { tenantIds: [LIFECYCLE_TENANT], name, mayReadSecrets: false, ...rights })).key;
  const watchers: string[] = [];
  for (let n = 0; n < Math.ceil(subscriptions / subscriptionsPerKey); n++) watchers.push(await issue(`bench-lifecycle-watcher-${n}`, {}));
  return {
    planes: [await issue('bench-plane-a', { mayReconcile: true }), await issue('bench-plane-b', { mayReconcile: true })],
    writer: await issue('bench-lifecycle-writer', { mayWrite: true }),
    watchers,
  };
}

/** Removes the tenant's rows (its revisions' leases and log lines go with them), then vacuums. */
export const emptyLifecycleTenant = (em: EntityManager) => emptyTenant(em, LIFECYCLE_TENANT, { vacuum: true });

// ---------------------------------------------------------------------------------------------------------------
// The service, as clients and data planes call it.

/** Milliseconds since the epoch, to the microsecond (the same clock as Date.now()). */
const now = () => performance.timeOrigin + performance.now();

async function graphql<T>(baseUrl: string, key: string, query: string, variables: Record<string, unknown>): Promise<T> {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', 'x-api-key': key },
    body: JSON.stringify({ query, variables }),
  });
  const body = await response.json() as { data?: T; errors?: { message: string }[] };
  if (!response.ok || body.errors?.length || !body.data) throw new Error(`HTTP ${response.status}: ${JSON.stringify(body.errors ?? body)}`);
  return body.data;
}

const CLAIM = 'mutation Claim($input: ClaimRevisionsInput!) { claimRevisions(input: $input) { leases { leaseId revisionId deploymentId } } }';
const REPORT = `mutation Report($input: ReportRevisionStatusInput!) { reportRevisionStatus(input: $input) {
  __typename ... on ReportRevisionStatusPayload { applied } ... on MutationError { message } } }`;
const CREATE = `mutation Create($input: CreateDeploymentInput!) { createDeployment(input: $input) {
  __typename ... on CreateDeploymentPayload { deployment { uuid latestRevisionId } } ... on MutationError { message } } }`;
const UPDATE = `mutation Update($input: UpdateDeploymentInput!) { updateDeployment(input: $input) {
  __typename ... on UpdateDeploymentPayload { deployment { latestRevisionId } } ... on MutationError { message } } }`;
/** What a client waiting for its revision selects. */
const WATCH = 'subscription Watch($id: ID!) { revisionUpdated(deploymentId: $id) { revisionId status at } }';

interface Lease { leaseId: string; revisionId: string; deploymentId: string }

const claim = async (baseUrl: string, key: string, limit: number) =>
  (await graphql<{ claimRevisions: { leases: Lease[] } }>(baseUrl, key, CLAIM, { input: { limit } })).claimRevisions.leases;

async function report(baseUrl: string, key: string, lease: Lease, status: string): Promise<void> {
  const { reportRevisionStatus: answer } = await graphql<{ reportRevisionStatus: { __typename: string; applied?: boolean; message?: string } }>(
    baseUrl, key, REPORT, { input: { revisionId: lease.revisionId, leaseId: lease.leaseId, status } });
  if (answer.__typename !== 'ReportRevisionStatusPayload' || !answer.applied) throw new Error(`report ${status} on ${lease.revisionId}: ${JSON.stringify(answer)}`);
}

let created = 0;
/** A deployment as a client creates one (external_docker, an image): its first revision is QUEUED. */
async function createDeployment(baseUrl: string, key: string): Promise<{ id: string; revisionId: string }> {
  const input = { name: `bench-l-${Date.now().toString(36)}-${(created++).toString(36)}`, source: 'EXTERNAL_DOCKER', sourceConfig: {}, sourceRevisionConfig: { imageUri: 'registry.example.com/bench/app:1' } };
  const { createDeployment: answer } = await graphql<{ createDeployment: { __typename: string; deployment?: { uuid: string; latestRevisionId: string }; message?: string } }>(baseUrl, key, CREATE, { input });
  if (!answer.deployment) throw new Error(`createDeployment: ${JSON.stringify(answer)}`);
  return { id: answer.deployment.uuid, revisionId: answer.deployment.latestRevisionId };
}

/** A new image for the deployment: a new QUEUED revision, as the CLI's PATCH makes one. */
async function newRevision(baseUrl: string, key: string, id: string, n: number): Promise<string> {
  const input = { id, sourceRevisionConfig: { imageUri: `registry.example.com/bench/app:${n}` } };
  const { updateDeployment: answer } = await graphql<{ updateDeployment: { __typename: string; deployment?: { latestRevisionId: string } } }>(baseUrl, key, UPDATE, { input });
  if (!answer.deployment) throw new Error(`updateDeployment: ${JSON.stringify(answer)}`);
  return answer.deployment.latestRevisionId;
}

interface ReceivedEvent { revisionId: string; status: string; at: string; receivedAt: number }

/** One subscription over SSE; `onEvent` gets each `next` event with the time its bytes arrived. */
async function watch(baseUrl: string, key: string, deploymentId: string, onEvent: (event: ReceivedEvent) => void, signal: AbortSignal): Promise<void> {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': key },
    body: JSON.stringify({ query: WATCH, variables: { id: deploymentId } }),
    signal,
  });
  if (response.status !== 200 || !response.body) throw new Error(`subscription refused: HTTP ${response.status} ${await response.text()}`);
  void (async () => {
    const decoder = new TextDecoder();
    let text = '';
    try {
      const reader = response.body!.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        const receivedAt = now();
        text += decoder.decode(read.value, { stream: true });
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const lines = text.slice(0, end).split('\n');
          text = text.slice(end + 2);
          if (!lines.includes('event: next')) continue;
          const result = JSON.parse(lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5)).join('\n'));
          if (result.errors) throw new Error(`subscription error: ${JSON.stringify(result.errors)}`);
          onEvent({ ...result.data.revisionUpdated, receivedAt });
        }
      }
    } catch (error) {
      if (!signal.aborted) console.error(`a subscription of ${deploymentId} failed: ${String(error)}`);
    }
  })();
}

/** Resolves when `count` events of `revisionId` reaching `status` have arrived (at most `ms`: a bound, not a measure). */
class EventWaits {
  readonly #waiting = new Map<string, { left: number; events: ReceivedEvent[]; done: (events: ReceivedEvent[]) => void }>();
  readonly #early = new Map<string, ReceivedEvent[]>();

  expect(revisionId: string, status: string, count: number, ms = 15_000): Promise<ReceivedEvent[]> {
    const key = `${revisionId} ${status}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${count - (this.#waiting.get(key)?.events.length ?? 0)} of ${count} events ${key} missing after ${ms} ms`)), ms);
      const entry = { left: count, events: [] as ReceivedEvent[], done: (events: ReceivedEvent[]) => { clearTimeout(timer); resolve(events); } };
      this.#waiting.set(key, entry);
      for (const event of this.#early.get(key) ?? []) this.#take(key, event);
      this.#early.delete(key);
    });
  }

  receive = (event: ReceivedEvent): void => {
    const key = `${event.revisionId} ${event.status}`;
    if (this.#waiting.has(key)) this.#take(key, event);
    else this.#early.set(key, [...(this.#early.get(key) ?? []), event]);
  };

  #take(key: string, event: ReceivedEvent): void {
    const entry = this.#waiting.get(key)!;
    entry.events.push(event);
    if (--entry.left === 0) {
      this.#waiting.delete(key);
      entry.done(entry.events);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 1. Report → event.

const WALK = ['BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED'];

export interface Spread { p50: number; p99: number; max: number }

export interface EventLatencyResult {
  case: string;
  subscriptions: number;
  reports: number;
  /** Events received and measured (reports × the subscriptions each reaches). */
  events: number;
  /** From the report's HTTP answer to the event: a lower bound of commit → event. */
  afterAnswerMs: Spread;
  /** From the event's `at` (the report transaction's start) to the event: an upper bound. */
  afterAtMs: Spread;
  /** The report's own round trip, for scale. */
  reportMs: Spread;
  /** The service's CPU per report, its events to the subscriptions included; null without `serviceCpuSeconds`. */
  cpuMsPerReport: number | null;
}

export const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
};
const spread = (xs: number[]): Spread => ({ p50: percentile(xs, 50), p99: percentile(xs, 99), max: Math.max(...xs) });

interface Samples { afterAnswer: number[]; afterAt: number[]; report: number[]; cpuSeconds: number }

/** CPU seconds the service has used so far (bench/harness.ts serviceCpuSeconds), when the bench can read it. */
export type CpuMeter = (() => number) | undefined;

/** Reports `status` and waits until `count` subscribers have its event; adds the samples. */
async function measuredReport(baseUrl: string, key: string, lease: Lease, status: string, waits: EventWaits, count: number, samples: Samples, cpu: CpuMeter): Promise<void> {
  const arrived = waits.expect(lease.revisionId, status, count);
  const cpuBefore = cpu?.() ?? 0;
  const sent = now();
  await report(baseUrl, key, lease, status);
  const answered = now();
  samples.report.push(answered - sent);
  for (const event of await arrived) {
    samples.afterAnswer.push(event.receivedAt - answered);
    samples.afterAt.push(event.receivedAt - Date.parse(event.at));
  }
  samples.cpuSeconds += (cpu?.() ?? 0) - cpuBefore;
}

/** Claims until every revision of `revisionIds` is leased (the queue is the tenant's own: nothing else is claimed). */
async function claimAll(baseUrl: string, key: string, revisionIds: Set<string>): Promise<Map<string, Lease>> {
  const leases = new Map<string, Lease>();
  while (leases.size < revisionIds.size) {
    const claimed = await claim(baseUrl, key, 100);
    if (claimed.length === 0) throw new Error(`only ${leases.size} of ${revisionIds.size} revisions could be claimed`);
    for (const lease of claimed) if (revisionIds.has(lease.revisionId)) leases.set(lease.revisionId, lease);
  }
  return leases;
}

/**
 * `subscriptions` deployments, one subscription each; every revision walked to DEPLOYED, one report at a time,
 * the deployments in turn.
 */
export async function measureSpreadEvents(baseUrl: string, keys: LifecycleKeys, subscriptions: number, subscriptionsPerKey: number, cpu?: CpuMeter): Promise<EventLatencyResult> {
  const deployments = [];
  for (let n = 0; n < subscriptions; n++) deployments.push(await createDeployment(baseUrl, keys.writer));
  const waits = new EventWaits();
  const stop = new AbortController();
  try {
    for (const [n, { id }] of deployments.entries()) await watch(baseUrl, keys.watchers[Math.floor(n / subscriptionsPerKey)]!, id, waits.receive, stop.signal);
    // The claim's event (AWAITING_BUILD) reaching every subscription says they are all open.
    const opened = Promise.all(deployments.map(({ revisionId }) => waits.expect(revisionId, 'AWAITING_BUILD', 1)));
    const leases = await claimAll(baseUrl, keys.planes[0], new Set(deployments.map((d) => d.revisionId)));
    await opened;
    const samples: Samples = { afterAnswer: [], afterAt: [], report: [], cpuSeconds: 0 };
    for (const status of WALK) {
      for (const { revisionId } of deployments) await measuredReport(baseUrl, keys.planes[0], leases.get(revisionId)!, status, waits, 1, samples, cpu);
    }
    return result(`${subscriptions} subscriptions, one per deployment; each report reaches one`, subscriptions, samples, cpu);
  } finally {
    stop.abort();
  }
}

/** One deployment with every subscription on it; `revisions` revisions walked to DEPLOYED in turn (a PATCH makes the next). */
export async function measureFanOutEvents(
  baseUrl: string, keys: LifecycleKeys, subscriptions: number, subscriptionsPerKey: number, revisions: number, cpu?: CpuMeter,
): Promise<EventLatencyResult> {
  const deployment = await createDeployment(baseUrl, keys.writer);
  const waits = new EventWaits();
  const stop = new AbortController();
  try {
    for (let n = 0; n < subscriptions; n++) await watch(baseUrl, keys.watchers[Math.floor(n / subscriptionsPerKey)]!, deployment.id, waits.receive, stop.signal);
    const samples: Samples = { afterAnswer: [], afterAt: [], report: [], cpuSeconds: 0 };
    let revisionId = deployment.revisionId;
    for (let r = 0; r < revisions; r++) {
      if (r > 0) {
        // Its QUEUED event may come before the answer that names it: EventWaits keeps events nobody waits for yet.
        revisionId = await newRevision(baseUrl, keys.writer, deployment.id, r + 1);
        await waits.expect(revisionId, 'QUEUED', subscriptions);
      }
      const opened = waits.expect(revisionId, 'AWAITING_BUILD', subscriptions);
      const leases = await claimAll(baseUrl, keys.planes[0], new Set([revisionId]));
      await opened;
      for (const status of WALK) await measuredReport(baseUrl, keys.planes[0], leases.get(revisionId)!, status, waits, subscriptions, samples, cpu);
    }
    return result(`${subscriptions} subscriptions on one deployment; each report reaches all ${subscriptions}`, subscriptions, samples, cpu);
  } finally {
    stop.abort();
  }
}

const result = (name: string, subscriptions: number, samples: Samples, cpu: CpuMeter): EventLatencyResult => ({
  case: name, subscriptions, reports: samples.report.length, events: samples.afterAnswer.length,
  afterAnswerMs: spread(samples.afterAnswer), afterAtMs: spread(samples.afterAt), reportMs: spread(samples.report),
  cpuMsPerReport: cpu ? (samples.cpuSeconds * 1000) / samples.report.length : null,
});

// ---------------------------------------------------------------------------------------------------------------
// 2. Claims per second.

/** `count` deployments of the tenant, each with one QUEUED revision, through the importer; their revision ids. */
export async function fillQueue(em: EntityManager, cipher: SecretCipher, count: number): Promise<string[]> {
  const start = Date.now();
  const run = start.toString(36);
  const deployments = Array.from({ length: count }, (_, n) => {
    const createdAt = new Date(start + n).toISOString();
    const revisionId = randomUUID();
    return {
      id: randomUUID(), tenant_id: LIFECYCLE_TENANT, name: `bench-q-${run}-${n}`, status: 'READY', source: 'external_docker',
      source_config: { deployment_type: 'dev' }, source_revision_config: { image_uri: `registry.example.com/bench/queue:${n}` },
      created_at: createdAt, updated_at: createdAt, latest_revision_id: revisionId, active_revision_id: null,
      revisions: [{ id: revisionId, status: 'QUEUED', created_at: createdAt }],
    };
  });
  await importDocument(em.fork(), JSON.stringify({ deployments }), cipher);
  return deployments.map((d) => d.revisions[0]!.id);
}

/** Every revision of the tenant QUEUED again, without leases; the tables vacuumed, so that each run starts alike. */
export async function requeue(em: EntityManager): Promise<void> {
  const connection = em.getConnection();
  await connection.execute('delete from revision_lease where tenant_id = ?', [LIFECYCLE_TENANT], 'run');
  await connection.execute(`update revision set status = 'QUEUED', status_message = null where tenant_id = ? and status <> 'QUEUED'`, [LIFECYCLE_TENANT], 'run');
  await connection.execute('vacuum analyze revision, revision_lease');
}

export interface ClaimsRun {
  planes: number;
  limit: number;
  /** Revisions claimed per second, over the whole queue (first claim sent to last answer). */
  claimsPerSecond: number;
  /** Claim requests per second, all planes together. */
  requestsPerSecond: number;
  claimMs: Spread;
  /** The service's CPU per claim request; null without a CPU meter. */
  cpuMsPerClaim: number | null;
}

/**
 * `planes` data planes claim `limit` at a time, at once, until the queue is empty; each revision exactly once. A
 * run must end within the lease (`leaseSeconds`, the service's REVISION_LEASE_SECONDS): later, the service may
 * queue a claimed revision again, and a second claim of it would be right.
 */
export async function raceForQueue(
  baseUrl: string, keys: LifecycleKeys, queue: readonly string[], planes: 1 | 2, limit: number, leaseSeconds: number, cpu?: CpuMeter,
): Promise<ClaimsRun> {
  const claimedBy = new Map<string, number>();
  const latencies: number[] = [];
  let duplicates = 0;
  const cpuBefore = cpu?.() ?? 0;
  const started = now();
  await Promise.all(keys.planes.slice(0, planes).map(async (key, plane) => {
    for (;;) {
      const sent = now();
      const leases = await claim(baseUrl, key, limit);
      latencies.push(now() - sent);
      if (leases.length === 0) return;
      for (const { revisionId } of leases) {
        if (claimedBy.has(revisionId)) duplicates++;
        claimedBy.set(revisionId, plane);
      }
    }
  }));
  const seconds = (now() - started) / 1000;
  const cpuSeconds = (cpu?.() ?? 0) - cpuBefore;
  if (seconds >= leaseSeconds) throw new Error(`${planes} data planes, limit ${limit}: the queue took ${seconds.toFixed(0)} s, longer than a lease (${leaseSeconds} s): use a smaller --queue`);
  const missing = queue.filter((id) => !claimedBy.has(id)).length;
  if (duplicates > 0 || missing > 0 || claimedBy.size !== queue.length) {
    throw new Error(`${planes} data planes, limit ${limit}: ${duplicates} revisions claimed twice, ${missing} of ${queue.length} never claimed, ${claimedBy.size} claimed`);
  }
  return {
    planes, limit, claimsPerSecond: queue.length / seconds, requestsPerSecond: latencies.length / seconds, claimMs: spread(latencies),
    cpuMsPerClaim: cpu ? (cpuSeconds * 1000) / latencies.length : null,
  };
}

export interface ClaimsResult {
  planes: number;
  limit: number;
  queue: number;
  rounds: number;
  /** Medians of the rounds. */
  claimsPerSecond: number;
  requestsPerSecond: number;
  claimP50Ms: number;
  claimP99Ms: number;
  /** The service's CPU per claim request (median of the rounds); null without a CPU meter. */
  cpuMsPerClaim: number | null;
  /** Each round's claims per second, in order. */
  claimsPerSecondByRound: number[];
}

export const CLAIM_CASES: { planes: 1 | 2; limit: number }[] = [{ planes: 2, limit: 1 }, { planes: 2, limit: 10 }, { planes: 1, limit: 10 }];

/** Each case `rounds` times, interleaved (the order rotated every round), the queue put back before each run. */
export async function measureClaims(
  baseUrl: string, em: EntityManager, keys: LifecycleKeys, queue: readonly string[], rounds: number, leaseSeconds: number,
  progress?: (line: string) => void, cpu?: CpuMeter,
): Promise<ClaimsResult[]> {
  const runs = new Map(CLAIM_CASES.map((c) => [c, [] as ClaimsRun[]]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < CLAIM_CASES.length; i++) {
      const c = CLAIM_CASES[(i + round) % CLAIM_CASES.length]!;
      await requeue(em);
      progress?.(`claims round ${round + 1}/${rounds}: ${c.planes} data plane(s), ${c.limit} per claim`);
      runs.get(c)!.push(await raceForQueue(baseUrl, keys, queue, c.planes, c.limit, leaseSeconds, cpu));
    }
  }
  return CLAIM_CASES.map((c) => {
    const of = runs.get(c)!;
    return {
      planes: c.planes, limit: c.limit, queue: queue.length, rounds,
      claimsPerSecond: median(of.map((r) => r.claimsPerSecond)), requestsPerSecond: median(of.map((r) => r.requestsPerSecond)),
      claimP50Ms: median(of.map((r) => r.claimMs.p50)), claimP99Ms: median(of.map((r) => r.claimMs.p99)),
      cpuMsPerClaim: cpu ? median(of.map((r) => r.cpuMsPerClaim!)) : null,
      claimsPerSecondByRound: of.map((r) => r.claimsPerSecond),
    };
  });
}

// ---------------------------------------------------------------------------------------------------------------

export interface LifecycleSettings {
  subscriptions: number;
  queue: number;
  rounds: number;
  /** Revisions walked on the one deployment of the fan-out case. */
  fanOutRevisions: number;
  /** The service's SUBSCRIPTIONS_PER_KEY and REVISION_LEASE_SECONDS. */
  subscriptionsPerKey: number;
  leaseSeconds: number;
  /** The service's CPU seconds so far, for the CPU per report and per claim (a busy machine's steadier measure). */
  serviceCpuSeconds?: () => number;
}

export interface LifecycleResult {
  settings: LifecycleSettings;
  events: EventLatencyResult[];
  claims: ClaimsResult[];
}

/** The whole group, in the lifecycle tenant, emptied before and after. */
export async function measureLifecycle(baseUrl: string, em: EntityManager, cipher: SecretCipher, settings: LifecycleSettings, progress?: (line: string) => void): Promise<LifecycleResult> {
  const keys = await prepareLifecycleTenant(em, settings.subscriptions, settings.subscriptionsPerKey);
  try {
    progress?.(`report → event: ${settings.subscriptions} subscriptions, one per deployment`);
    const cpu = settings.serviceCpuSeconds;
    const spreadCase = await measureSpreadEvents(baseUrl, keys, settings.subscriptions, settings.subscriptionsPerKey, cpu);
    progress?.(`report → event: ${settings.subscriptions} subscriptions on one deployment`);
    const fanOutCase = await measureFanOutEvents(baseUrl, keys, settings.subscriptions, settings.subscriptionsPerKey, settings.fanOutRevisions, cpu);
    await emptyTenant(em, LIFECYCLE_TENANT);
    progress?.(`claims: filling a queue of ${settings.queue}`);
    const queue = await fillQueue(em, cipher, settings.queue);
    const claims = await measureClaims(baseUrl, em, keys, queue, settings.rounds, settings.leaseSeconds, progress, cpu);
    return { settings, events: [spreadCase, fanOutCase], claims };
  } finally {
    await emptyLifecycleTenant(em);
  }
}

const ms = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));

export function formatLifecycleTables({ settings, events, claims }: LifecycleResult): string {
  return [
    `Revision lifecycle: report → event on a subscribed client (revisionUpdated over SSE, ${settings.subscriptions} subscriptions open; `
      + 'one report at a time through GraphQL, each waiting for its events). The commit lies between the report\'s answer and its `at`:',
    '',
    '| Case | reports | events | after the answer: p50 / p99 / max ms | after `at`: p50 / p99 / max ms | the report\'s round trip: p50 / p99 ms | service CPU ms per report, events included |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...events.map((e) => `| ${e.case} | ${e.reports} | ${e.events} | ${ms(e.afterAnswerMs.p50)} / ${ms(e.afterAnswerMs.p99)} / ${ms(e.afterAnswerMs.max)} | `
      + `${ms(e.afterAtMs.p50)} / ${ms(e.afterAtMs.p99)} / ${ms(e.afterAtMs.max)} | ${ms(e.reportMs.p50)} / ${ms(e.reportMs.p99)} | ${e.cpuMsPerReport === null ? '-' : ms(e.cpuMsPerReport)} |`),
    '',
    `Claims: ${settings.queue} QUEUED revisions (one per deployment), data planes claiming at once, one claim at a time each, until none is left; `
      + `median of ${settings.rounds} rounds:`,
    '',
    '| Data planes | revisions per claim | revisions claimed/s | claims (requests)/s | claim p50 / p99 ms | service CPU ms per claim | claimed/s by round |',
    '|---:|---:|---:|---:|---:|---:|---|',
    ...claims.map((c) => `| ${c.planes} | ${c.limit} | ${c.claimsPerSecond.toFixed(0)} | ${c.requestsPerSecond.toFixed(0)} | ${ms(c.claimP50Ms)} / ${ms(c.claimP99Ms)} | `
      + `${c.cpuMsPerClaim === null ? '-' : ms(c.cpuMsPerClaim)} | ${c.claimsPerSecondByRound.map((x) => x.toFixed(0)).join(', ')} |`),
  ].join('\n');
}
