// The process's live deployment changes: the triggers' notifications (heard on the process's one LISTEN
// connection) fanned out to the open streams of their tenant, and revision transitions to the streams of their
// deployment (delivered at once, one by one: a client waiting for a status wants it now). Notifications are gathered per tenant for a
// short window first, so the many notifications of one import reach each stream as one batch, and a tenant
// nobody subscribes to costs nothing. It also keeps the streams in check: a limit per API key, the streams of
// a revoked key ended within moments, every stream told when notifications may have been missed (a lost
// LISTEN connection), and every stream completed on shutdown. New log lines reach the log streams of their
// revision and phase (each loads the lines itself: the notification carries a line number only).
import type { GraphQLError } from 'graphql';
import type { DatabaseNotifications } from '../../../db/database-notifications.ts';
import type { Logger } from '../../../observability/logger.ts';
import { onRevocation } from '../../tenancy/api-key-revocations.ts';
import type { Principal } from '../../tenancy/authenticate.ts';
import { DEPLOYMENT_CHANGE_CHANNEL, mergeChange, parseChangeNotification, type ChangeKind } from './change-notifications.ts';
import { DeploymentChangeStream, type LoadChanges } from './deployment-change-stream.ts';
import { REVISION_TRANSITION_CHANNEL, parseTransition } from '../../revisions/lifecycle/revision-transitions.ts';
import { RevisionTransitionStream } from '../../revisions/lifecycle/revision-transition-stream.ts';
import { REVISION_LOG_CHANNEL, parseLogAppended } from '../../revisions/lifecycle/revision-log-notifications.ts';
import { RevisionLogStream, type LoadLogLines } from '../../revisions/lifecycle/revision-log-stream.ts';
import type { LogPhase } from '../../revisions/lifecycle/revision-log-line.entity.ts';
import { liveUpdateErrors, type MissedReason } from './live-update-errors.ts';
import { LISTENER_WORK_CHANNEL, WakeUpStream, parseWorkNotification, workKey } from '../../listeners/listener-wake-ups.ts';

/** The channels the feed hears (the LISTEN connection must listen on them). */
export const FEED_CHANNELS = [DEPLOYMENT_CHANGE_CHANNEL, REVISION_TRANSITION_CHANNEL, REVISION_LOG_CHANNEL, LISTENER_WORK_CHANNEL] as const;

/** How long notifications are gathered per tenant before the streams hear of them. */
const WINDOW_MS = 25;
const CHUNK_SIZE = 100;
const MAX_PENDING_PER_STREAM = 10_000;
const MAX_PENDING_TRANSITIONS = 1_000;
/** Revoked key ids remembered, for a subscription authenticated just before its key's revocation was heard. */
const REVOKED_REMEMBERED = 10_000;

export interface DeploymentChangeFeedOptions {
  /** The LISTEN connection; none: subscriptions are refused (an app without one, in tests). */
  notifications: DatabaseNotifications | undefined;
  /** Open streams per API key in this process. */
  streamsPerKey: number;
  /** Those of the given keys that are revoked now (asked after a reconnection: a revocation may have been missed). */
  revokedAmong: (apiKeyIds: string[]) => Promise<string[]>;
  logger: Logger;
  /** Told of every notice of missed changes, by reason. */
  onMissed?: (reason: MissedReason) => void;
}

interface OpenStream {
  stream: DeploymentChangeStream | RevisionTransitionStream | RevisionLogStream | WakeUpStream;
  principal: Principal;
  /** The notice this stream gets when changes may have been missed. */
  missedNotice: (reason: MissedReason) => GraphQLError;
}

export class DeploymentChangeFeed {
  private readonly options: DeploymentChangeFeedOptions;
  private readonly byTenant = new Map<string, Set<DeploymentChangeStream>>();
  /** Transition streams by `<tenant id> <deployment id>`. */
  private readonly byDeployment = new Map<string, Set<RevisionTransitionStream>>();
  /** Log streams by `<tenant id> <revision id> <phase>`. */
  private readonly byRevisionLog = new Map<string, Set<RevisionLogStream>>();
  /** Data planes' wake-up streams by `<tenant id> <listener id or ->` (one entry per tenant of the key). */
  private readonly byListenerWork = new Map<string, Set<WakeUpStream>>();
  private readonly byKey = new Map<string, Set<OpenStream>>();
  private readonly revoked = new Set<string>();
  private batches = new Map<string, Map<string, ChangeKind>>();
  private flushTimer: NodeJS.Timeout | undefined;
  /** Notifications may have been missed since the last time LISTEN held. */
  private gap: boolean;
  private ended = false;
  private readonly detach: () => void;

  constructor(options: DeploymentChangeFeedOptions) {
    this.options = options;
    const { notifications } = options;
    this.gap = !notifications?.listening;
    if (!notifications) {
      this.detach = () => {};
      return;
    }
    const onNotification = (channel: string, payload: string) => {
      if (channel === DEPLOYMENT_CHANGE_CHANNEL) this.gather(payload);
      else if (channel === REVISION_TRANSITION_CHANNEL) this.deliverTransition(payload);
      else if (channel === REVISION_LOG_CHANNEL) this.deliverLogAppended(payload);
      else if (channel === LISTENER_WORK_CHANNEL) this.deliverWork(payload);
    };
    const onLost = () => { this.gap = true; };
    const onListening = () => void this.recover();
    const stopRevocations = onRevocation(notifications, (apiKeyId) => this.revoke(apiKeyId));
    notifications.on('notification', onNotification);
    notifications.on('lost', onLost);
    notifications.on('listening', onListening);
    this.detach = () => {
      stopRevocations();
      notifications.off('notification', onNotification);
      notifications.off('lost', onLost);
      notifications.off('listening', onListening);
    };
  }

  /** Streams open right now. */
  get size(): number {
    let size = 0;
    for (const streams of this.byKey.values()) size += streams.size;
    return size;
  }

  /** A new stream for the caller; throws the GraphQL error that says why not (limit, revoked, shutting down). */
  open(principal: Principal, load: LoadChanges): DeploymentChangeStream {
    const ofKey = this.admit(principal);
    const ofTenant = this.byTenant.get(principal.tenantId) ?? new Set<DeploymentChangeStream>();
    const stream: DeploymentChangeStream = new DeploymentChangeStream({
      load,
      chunkSize: CHUNK_SIZE,
      maxPending: MAX_PENDING_PER_STREAM,
      changesMissed: (reason) => this.missedNotice(reason),
      onLoadFailure: (error) => this.options.logger.error({ err: error, tenantId: principal.tenantId }, 'live updates: loading changes failed; the stream is told to fetch again'),
      onClose: () => {
        removeFrom(this.byKey, principal.apiKeyId, open);
        removeFrom(this.byTenant, principal.tenantId, stream);
      },
    });
    const open: OpenStream = { principal, stream, missedNotice: (reason) => this.missedNotice(reason) };
    ofKey.add(open);
    ofTenant.add(stream);
    this.byKey.set(principal.apiKeyId, ofKey);
    this.byTenant.set(principal.tenantId, ofTenant);
    return stream;
  }

  /** A new stream of the transitions of one deployment's revisions (the caller checked it is the tenant's). */
  openTransitions(principal: Principal, deploymentId: string): RevisionTransitionStream {
    const ofKey = this.admit(principal);
    const key = `${principal.tenantId} ${deploymentId}`;
    const ofDeployment = this.byDeployment.get(key) ?? new Set<RevisionTransitionStream>();
    const stream: RevisionTransitionStream = new RevisionTransitionStream({
      maxPending: MAX_PENDING_TRANSITIONS,
      transitionsMissed: () => this.missedNotice('overflow', liveUpdateErrors.transitionsMissed),
      onClose: () => {
        removeFrom(this.byKey, principal.apiKeyId, open);
        removeFrom(this.byDeployment, key, stream);
      },
    });
    const open: OpenStream = { principal, stream, missedNotice: (reason) => this.missedNotice(reason, liveUpdateErrors.transitionsMissed) };
    ofKey.add(open);
    ofDeployment.add(stream);
    this.byKey.set(principal.apiKeyId, ofKey);
    this.byDeployment.set(key, ofDeployment);
    return stream;
  }

  /**
   * A new stream of the lines appended to one revision's log (the caller checks the revision is the tenant's,
   * then says where it starts: `startAfter`).
   */
  openLogLines(principal: Principal, revisionId: string, phase: LogPhase, load: LoadLogLines): RevisionLogStream {
    const ofKey = this.admit(principal);
    const key = `${principal.tenantId} ${revisionId} ${phase}`;
    const ofRevision = this.byRevisionLog.get(key) ?? new Set<RevisionLogStream>();
    const stream: RevisionLogStream = new RevisionLogStream(load, () => {
      removeFrom(this.byKey, principal.apiKeyId, open);
      removeFrom(this.byRevisionLog, key, stream);
    });
    const open: OpenStream = { principal, stream, missedNotice: (reason) => this.missedNotice(reason) };
    ofKey.add(open);
    ofRevision.add(stream);
    this.byKey.set(principal.apiKeyId, ofKey);
    this.byRevisionLog.set(key, ofRevision);
    return stream;
  }

  /**
   * A data plane's wake-ups (modules/listeners/listener-wake-ups.ts): revisions queued for its listener (or for
   * no listener, a key bound to none) in any of the tenants it acts for.
   */
  openWakeUps(principal: Principal): WakeUpStream {
    const ofKey = this.admit(principal);
    const keys = principal.tenantIds.map((tenantId) => workKey(tenantId, principal.listenerId));
    const stream: WakeUpStream = new WakeUpStream(() => {
      removeFrom(this.byKey, principal.apiKeyId, open);
      for (const key of keys) removeFrom(this.byListenerWork, key, stream);
    });
    const open: OpenStream = { principal, stream, missedNotice: (reason) => this.missedNotice(reason) };
    ofKey.add(open);
    for (const key of keys) this.byListenerWork.set(key, (this.byListenerWork.get(key) ?? new Set<WakeUpStream>()).add(stream));
    this.byKey.set(principal.apiKeyId, ofKey);
    return stream;
  }

  /** The key's open streams, once it may open one more; throws the GraphQL error that says why not. */
  private admit(principal: Principal): Set<OpenStream> {
    if (!this.options.notifications) throw liveUpdateErrors.unavailable();
    if (this.ended) throw liveUpdateErrors.shuttingDown();
    if (this.revoked.has(principal.apiKeyId)) throw liveUpdateErrors.revoked();
    const ofKey = this.byKey.get(principal.apiKeyId) ?? new Set<OpenStream>();
    if (ofKey.size >= this.options.streamsPerKey) throw liveUpdateErrors.tooManyStreams(this.options.streamsPerKey);
    return ofKey;
  }

  /** Completes every stream and refuses new ones (graceful shutdown: clients reconnect elsewhere). */
  endAll(): void {
    this.ended = true;
    for (const streams of [...this.byKey.values()]) for (const { stream } of [...streams]) stream.end();
  }

  /** Ends every stream and stops listening. */
  stop(): void {
    this.endAll();
    this.detach();
    clearTimeout(this.flushTimer);
    this.batches.clear();
  }

  private gather(payload: string): void {
    const notification = parseChangeNotification(payload);
    if (!notification) {
      this.options.logger.warn({ payload: payload.slice(0, 200) }, 'live updates: ignoring a notification that is not one of ours');
      return;
    }
    if (!this.byTenant.has(notification.tenantId)) return;
    let batch = this.batches.get(notification.tenantId);
    if (!batch) this.batches.set(notification.tenantId, (batch = new Map()));
    for (const deploymentId of notification.deploymentIds) mergeChange(batch, deploymentId, notification.kind);
    this.flushTimer ??= setTimeout(() => this.flush(), WINDOW_MS);
  }

  private deliverTransition(payload: string): void {
    const transition = parseTransition(payload);
    if (!transition) {
      this.options.logger.warn({ payload: payload.slice(0, 200) }, 'live updates: ignoring a transition notification that is not one of ours');
      return;
    }
    for (const stream of this.byDeployment.get(`${transition.tenantId} ${transition.deploymentId}`) ?? []) stream.receive(transition);
  }

  private deliverLogAppended(payload: string): void {
    const appended = parseLogAppended(payload);
    if (!appended) {
      this.options.logger.warn({ payload: payload.slice(0, 200) }, 'live updates: ignoring a log notification that is not one of ours');
      return;
    }
    for (const stream of this.byRevisionLog.get(`${appended.tenantId} ${appended.revisionId} ${appended.phase}`) ?? []) stream.receive(appended.lastLine);
  }

  private deliverWork(payload: string): void {
    const work = parseWorkNotification(payload);
    if (!work) {
      this.options.logger.warn({ payload: payload.slice(0, 200) }, 'live updates: ignoring a listener work notification that is not one of ours');
      return;
    }
    for (const stream of this.byListenerWork.get(work.key) ?? []) stream.receive({ reason: 'queued', tenantId: work.tenantId });
  }

  private flush(): void {
    this.flushTimer = undefined;
    const batches = this.batches;
    this.batches = new Map();
    for (const [tenantId, batch] of batches) {
      for (const stream of this.byTenant.get(tenantId) ?? []) stream.receive(batch);
    }
  }

  private revoke(apiKeyId: string): void {
    if (this.revoked.size >= REVOKED_REMEMBERED) this.revoked.delete(this.revoked.values().next().value!);
    this.revoked.add(apiKeyId);
    for (const { stream } of [...(this.byKey.get(apiKeyId) ?? [])]) stream.end(liveUpdateErrors.revoked());
  }

  /**
   * LISTEN holds again. If it was lost meanwhile, every open stream is told that changes may have been missed,
   * and the keys of the open streams are checked again (their revocation may have been among them).
   */
  private async recover(): Promise<void> {
    if (!this.gap) return;
    this.gap = false;
    const open = [...this.byKey.values()].flatMap((streams) => [...streams]);
    if (open.length === 0) return;
    this.options.logger.warn({ streams: open.length }, 'live updates: LISTEN connection restored; open streams are told to fetch again');
    for (const { stream, missedNotice } of open) stream.missed(missedNotice('reconnect'));
    try {
      for (const apiKeyId of await this.options.revokedAmong([...this.byKey.keys()])) this.revoke(apiKeyId);
    } catch (error) {
      // Unanswered: the streams stay, as requests authenticated moments before would.
      this.options.logger.error({ err: error }, 'live updates: could not check the keys of open streams after a reconnection');
    }
  }

  private missedNotice(reason: MissedReason, notice: (reason: MissedReason) => GraphQLError = liveUpdateErrors.changesMissed): GraphQLError {
    this.options.onMissed?.(reason);
    return notice(reason);
  }
}

function removeFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const values = map.get(key);
  if (!values) return;
  values.delete(value);
  if (values.size === 0) map.delete(key);
}
