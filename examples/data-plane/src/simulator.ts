// A data-plane SIMULATOR: it builds nothing and runs nothing. It talks to the gateway exactly as a real data
// plane does, through the public data-plane API only (GraphQL at /graphql, with a key issued with --reconcile):
// it claims queued revisions, walks each through AWAITING_BUILD → BUILDING → AWAITING_DEPLOY → DEPLOYING →
// DEPLOYED with STEP_MS between two reports, appends made-up build and deploy log lines (and, once DEPLOYED, a few
// runtime lines, as the running service's log would be shipped), and finally reports the
// deployment READY at https://<deployment id>.example.invalid. So a newcomer can create a deployment (in
// GraphiQL, with the CLI, over REST) and watch its revision become DEPLOYED live.
//
// It asks for work only when woken (the `dataPlaneWakeUps` subscription, wake-ups.ts) or when a slot frees, never
// in a loop while idle; with a key bound to a listener (`apikey create --reconcile --listener <id>`) it is that
// listener's agent: it claims that listener's revisions only and keeps it online with heartbeats (heartbeats.ts).
//
// Run it with `RECONCILE_KEY=<key> npm run example:data-plane` beside `npm start` (examples/data-plane/README.md).
// It keeps going until SIGINT or SIGTERM: then it claims nothing more, lets the revisions it holds finish, and
// exits 0; a second signal stops at once (their leases lapse and the gateway queues them again).
import { GatewayClient, GatewayError, GatewayUnavailable, readSettings, type Settings } from './gateway.ts';
import {
  APPEND_REVISION_LOGS, CLAIM_REVISIONS, REPORT_DEPLOYMENT_STATUS, REPORT_REVISION_STATUS, REVISION_SOURCE,
  type AppendRevisionLogsResult, type ClaimRevisionsResult, type LogPhase, type ReportDeploymentStatusResult,
  type ReportRevisionStatusResult, type RevisionLease, type RevisionSourceResult, type RevisionStatus,
} from './operations.ts';
import { inspectSourceArchive, type SourceInspection } from './source-archive.ts';
import { inspectRegistryImage, type ImagePull } from './registry-image.ts';
import { startHeartbeats } from './heartbeats.ts';
import { WakeUps } from './wake-ups.ts';

/** Revisions walked at once (a real data plane: its free builders). */
const CAPACITY = 4;
/** After a failure worth retrying (the gateway unreachable, restarting, rate limited): how long before the next try. */
const RETRY_MS = 2000;
/** Shortest time between two lease renewals. */
const MIN_RENEWAL_MS = 250;

/** Said with every status it reports (the revision's `statusMessage`), so nobody takes it for a real build. */
const SAYS = 'Simulated by examples/data-plane: nothing was built or run.';

const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 23)} ${line}`);
const short = (id: string) => id.slice(0, 8);

/** Stops the walk of one revision: the gateway said it is no longer ours to report on (or never was). */
class Dropped extends Error {
  override name = 'Dropped';
}

/** The second signal: leave at once. */
class Abandoned extends Error {
  override name = 'Abandoned';
}

/** Waits `ms`, or less when `signal` aborts (then throws Abandoned). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new Abandoned());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Abandoned());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The simulated logs: what a build and a roll-out might print, each line saying it is simulated. */
const BUILD_LOG_START = (lease: RevisionLease) => [
  `[simulator] build of revision ${lease.revisionId} started (nothing is built)`,
  '[simulator] Step 1/3 : FROM registry.example.invalid/base:latest',
  '[simulator] Step 2/3 : COPY . /app',
];
const BUILD_LOG_END = () => ['[simulator] Step 3/3 : CMD ["serve"]', '[simulator] image pushed (none was)'];
const DEPLOY_LOG = (lease: RevisionLease) => [
  `[simulator] rolling out to deployment ${lease.deploymentId} (nothing runs)`,
  '[simulator] 1/1 replicas ready',
];
/** What the running service would print (the CLI's `deploy logs`), with its levels. */
const RUNTIME_LOG: [message: string, level: string][] = [
  ['[simulator] server listening on :8080 (nothing listens)', 'INFO'],
  ['[simulator] GET /health 200', 'DEBUG'],
  ['[simulator] no traffic: this service is simulated', 'WARNING'],
];

/** One claimed revision, walked through its statuses under its lease. */
class RevisionWalk {
  readonly #client: GatewayClient;
  readonly #lease: RevisionLease;
  readonly #settings: Settings;
  readonly #abandon: AbortSignal;
  #status: RevisionStatus = 'AWAITING_BUILD';
  /** When (local clock) to renew the lease while waiting: halfway through what the gateway last granted. */
  #renewAt: number;
  readonly #nextLine: Record<LogPhase, number> = { BUILD: 0, DEPLOY: 0, RUNTIME: 0 };

  constructor(client: GatewayClient, lease: RevisionLease, settings: Settings, abandon: AbortSignal) {
    this.#client = client;
    this.#lease = lease;
    this.#settings = settings;
    this.#abandon = abandon;
    this.#renewAt = this.#halfwayTo(lease.expiresAt);
  }

  get #name(): string {
    return `revision ${short(this.#lease.revisionId)} of deployment ${short(this.#lease.deploymentId)}`;
  }

  async run(): Promise<void> {
    log(`${this.#name}: claimed (AWAITING_BUILD)`);
    try {
      await this.#pause();
      await this.#report('BUILDING');
      await this.#append('BUILD', BUILD_LOG_START(this.#lease));
      // A remote build's source, or a local build's pushed image: real, so is what is said about it; one that
      // cannot be built or pulled ends the revision here.
      const inspection = this.#lease.sourceArchiveUrl ? this.#inspectSource(this.#lease.sourceArchiveUrl)
        : this.#lease.imagePull ? this.#inspectImage(this.#lease.imagePull) : undefined;
      if (inspection && !(await this.#tellInspection(await this.#renewingWhile(inspection)))) return;
      await this.#pause();
      await this.#append('BUILD', BUILD_LOG_END());
      await this.#report('AWAITING_DEPLOY');
      await this.#pause();
      await this.#report('DEPLOYING');
      await this.#append('DEPLOY', DEPLOY_LOG(this.#lease));
      await this.#pause();
      // Where it answers is known once rolled out: said before DEPLOYED, so a client that reads the deployment as
      // soon as it sees DEPLOYED (the CLI prints `source_config.custom_url`) finds it.
      const customUrl = `https://${this.#lease.deploymentId}.example.invalid`;
      await this.#reportDeployment({ customUrl });
      await this.#report('DEPLOYED');
      // Runtime lines come once the revision is DEPLOYED (no lease needed then; the one sent is not checked).
      await this.#append('RUNTIME', RUNTIME_LOG.map(([message]) => message), RUNTIME_LOG.map(([, level]) => level));
      await this.#reportDeployment({ status: 'READY' });
      log(`${this.#name}: deployment reported READY at ${customUrl}`);
    } catch (error) {
      if (error instanceof Dropped) log(`${this.#name}: dropped, ${error.message}`);
      else if (error instanceof Abandoned) log(`${this.#name}: left ${this.#status}; its lease lapses and the gateway queues it again`);
      else throw error;
    }
  }

  /** STEP_MS, renewing the lease on the way whenever half of it has run out. */
  async #pause(): Promise<void> {
    const end = Date.now() + this.#settings.stepMs;
    for (let now = Date.now(); now < end; now = Date.now()) {
      if (this.#renewAt >= end) {
        await sleep(end - now, this.#abandon);
        return;
      }
      await sleep(Math.max(0, this.#renewAt - now), this.#abandon);
      // The status the revision already has, again: the gateway renews the lease and changes nothing else.
      await this.#report(this.#status, { renewal: true });
    }
  }

  /** Downloads and unpacks the archive, and reads its config file at the path the revision names. */
  async #inspectSource(url: string): Promise<SourceInspection> {
    const { deploymentId, revisionId, tenantId } = this.#lease;
    const { deployment } = await this.#retrying(() => this.#client.request<RevisionSourceResult>(REVISION_SOURCE, { deploymentId, revisionId }, { tenantId }));
    const configPath = deployment?.revision?.sourceRevisionConfig.graphConfigPath ?? null;
    const inspection = await inspectSourceArchive(url, configPath, this.#abandon);
    // A download cut short by the second signal is no failure of the source: leave the revision as it is.
    if (this.#abandon.aborted) throw new Abandoned();
    return inspection;
  }

  /** Reads the image's manifest from the gateway's registry with the lease's pull-only token. */
  async #inspectImage(pull: ImagePull): Promise<SourceInspection> {
    const inspection = await inspectRegistryImage(pull, this.#abandon);
    if (this.#abandon.aborted) throw new Abandoned();
    return inspection;
  }

  /** The inspection's lines in the build log; false (and BUILD_FAILED) when it found a failure. */
  async #tellInspection({ lines, failure }: SourceInspection): Promise<boolean> {
    await this.#append('BUILD', [...lines, ...(failure ? [`BUILD_FAILED: ${failure}`] : [])].map((line) => `[simulator] ${line}`),
      [...lines.map(() => 'info'), 'ERROR']);
    if (failure) await this.#report('BUILD_FAILED', { message: `${failure}. ${SAYS}` });
    return failure === null;
  }

  /** Waits for `work`, renewing the lease whenever half of it has run out. */
  async #renewingWhile<T>(work: Promise<T>): Promise<T> {
    let done = false;
    const finished = work.finally(() => { done = true; });
    while (!done) {
      await Promise.race([finished.catch(() => undefined), sleep(Math.max(0, this.#renewAt - Date.now()), this.#abandon)]);
      if (!done) await this.#report(this.#status, { renewal: true });
    }
    return finished;
  }

  async #report(status: RevisionStatus, { renewal = false, message = SAYS } = {}): Promise<void> {
    const input = { revisionId: this.#lease.revisionId, leaseId: this.#lease.leaseId, status, message };
    const { reportRevisionStatus: answer } = await this.#retrying(() => this.#client.request<ReportRevisionStatusResult>(REPORT_REVISION_STATUS, { input }));
    switch (answer.__typename) {
      case 'ReportRevisionStatusPayload':
        this.#status = answer.status;
        if (answer.leaseExpiresAt) this.#renewAt = this.#halfwayTo(answer.leaseExpiresAt);
        if (!renewal) log(`${this.#name}: ${status}${answer.applied ? '' : ' (already so: a retried report, applied once)'}${message === SAYS ? '' : ` (${message.slice(0, -SAYS.length - 1)})`}`);
        return;
      case 'LeaseLostError':
        throw new Dropped(`its lease is lost (the revision is ${answer.status} now): another claim holds it, or it lapsed`);
      case 'InvalidTransitionError':
        throw new Dropped(`the gateway refused ${answer.from} → ${answer.to}: ${answer.message}`);
      default:
        throw new Dropped(answer.message);
    }
  }

  /** Appends `lines` to the phase's log, numbered on from the last line the gateway has stored. */
  async #append(phase: LogPhase, messages: string[], levels: string[] = []): Promise<void> {
    const lines = messages.map((message, n) => ({ message, level: levels[n] ?? 'info', timestamp: new Date().toISOString() }));
    for (let attempt = 0; attempt < 2; attempt++) {
      const input = { revisionId: this.#lease.revisionId, leaseId: this.#lease.leaseId, phase, firstLine: this.#nextLine[phase], lines };
      const { appendRevisionLogs: answer } = await this.#retrying(() => this.#client.request<AppendRevisionLogsResult>(APPEND_REVISION_LOGS, { input }));
      switch (answer.__typename) {
        case 'AppendRevisionLogsPayload':
          this.#nextLine[phase] = answer.nextLine;
          if (answer.leaseExpiresAt) this.#renewAt = this.#halfwayTo(answer.leaseExpiresAt);
          return;
        case 'LogLinesOutOfOrderError':
          // Lines would leave a gap (never from this program): number them on from where the log ends.
          this.#nextLine[phase] = answer.expectedLine;
          continue;
        case 'LeaseLostError':
          throw new Dropped(`its lease is lost (the revision is ${answer.status} now): another claim holds it, or it lapsed`);
        case 'RevisionEndedError':
          // Never from this program: its last lines go before its final report.
          throw new Dropped(`it has ended (${answer.status}) and takes no more log lines`);
        case 'RevisionNotRunningError':
          // Never from this program: its runtime lines come after DEPLOYED.
          throw new Dropped(`it is ${answer.status}, not DEPLOYED, and takes no runtime lines`);
        case 'LogLineLimitError':
          // Never from this program either (a few lines a revision): the log is full; the walk goes on without these lines.
          log(`${this.#name}: its log is full (${answer.stored} of ${answer.limit} lines); ${lines.length} line(s) not sent`);
          return;
        default:
          throw new Dropped(answer.message);
      }
    }
  }

  async #reportDeployment(report: { status?: string; customUrl?: string }): Promise<void> {
    const input = { deploymentId: this.#lease.deploymentId, ...report };
    const { reportDeploymentStatus: answer } = await this.#retrying(() => this.#client.request<ReportDeploymentStatusResult>(REPORT_DEPLOYMENT_STATUS, { input }));
    if (answer.__typename !== 'ReportDeploymentStatusPayload') throw new Dropped(answer.message);
  }

  /** A call retried while the gateway is unavailable: every call here may be repeated (a report is applied once). */
  async #retrying<T>(call: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await call();
      } catch (error) {
        if (!(error instanceof GatewayUnavailable)) throw error;
        log(`${this.#name}: ${error.message}; trying again in ${RETRY_MS / 1000} s`);
        await sleep(RETRY_MS, this.#abandon);
      }
    }
  }

  #halfwayTo(expiresAt: string): number {
    const now = Date.now();
    return now + Math.max(MIN_RENEWAL_MS, (Date.parse(expiresAt) - now) / 2);
  }
}

async function main(): Promise<void> {
  const settings = readSettings();
  const client = new GatewayClient(settings);
  // The first signal: claim nothing more and let the walks finish; the second: leave at once.
  const stopping = new AbortController();
  const abandon = new AbortController();
  const onSignal = (signal: string) => {
    if (!stopping.signal.aborted) {
      log(`${signal}: claiming nothing more; finishing ${walks.size} revision(s) in progress (${signal} again to stop at once)`);
      stopping.abort();
    } else {
      abandon.abort();
    }
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));

  const walks = new Set<Promise<void>>();
  const listenerId = await startHeartbeats(client, settings, stopping.signal, log);
  log(`Data-plane SIMULATOR (builds and runs nothing): claiming queued revisions from ${settings.gatewayUrl}/graphql, `
    + `${settings.stepMs} ms between two reports${settings.tenantId ? `, for tenant ${settings.tenantId}` : ''}, `
    + `${listenerId ? `for listener ${listenerId} (version ${settings.version})` : 'for deployments on no listener'}. Ctrl-C to stop.`);
  // Opened before the first claim: whatever is queued after it wakes the loop below.
  const wakeUps = new WakeUps(settings, stopping.signal, log);

  while (!stopping.signal.aborted) {
    if (walks.size >= CAPACITY) {
      // Full: a walk's end frees a slot, and more may be queued.
      await Promise.race(walks);
      wakeUps.again();
      continue;
    }
    // Idle: nothing is asked until a wake-up (the first comes as the subscription opens).
    await wakeUps.wait();
    if (stopping.signal.aborted) break;
    // The claim answers every wake-up so far; one that comes while it is on its way makes the next.
    wakeUps.take();
    const limit = CAPACITY - walks.size;
    let claimed: RevisionLease[];
    try {
      ({ claimRevisions: { leases: claimed } } = await client.request<ClaimRevisionsResult>(CLAIM_REVISIONS, { input: { limit } }));
    } catch (error) {
      if (!(error instanceof GatewayUnavailable)) throw error;
      log(`${error.message}; trying again in ${RETRY_MS / 1000} s`);
      await sleep(RETRY_MS, stopping.signal).catch(() => undefined);
      wakeUps.again();
      continue;
    }
    for (const lease of claimed) {
      const walk: Promise<void> = new RevisionWalk(client, lease, settings, abandon.signal).run()
        .catch((error: unknown) => fail(error))
        .finally(() => walks.delete(walk));
      walks.add(walk);
    }
    // A full claim may have left more behind: claim again (up to the free slots).
    if (claimed.length === limit) wakeUps.again();
  }
  await Promise.all(walks);
  log('Data-plane SIMULATOR stopped.');
}

/** What to do about a refusal that repeating will not fix. */
function hint(error: GatewayError): string | undefined {
  if (error.codes.includes('UNAUTHENTICATED')) return 'RECONCILE_KEY is not a key this gateway knows (or it was revoked).';
  if (error.codes.includes('FORBIDDEN')) return 'RECONCILE_KEY must be a data plane\'s key: `npm run apikey -- create --tenant <tenant id> --reconcile` (a key of several tenants: set TENANT_ID to act for one).';
  return undefined;
}

function fail(error: unknown): never {
  console.error(`Data-plane SIMULATOR: ${error instanceof Error ? error.message : String(error)}`);
  const advice = error instanceof GatewayError ? hint(error) : undefined;
  if (advice) console.error(advice);
  process.exit(1);
}

main().catch(fail);
