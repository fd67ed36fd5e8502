// One subscriber's stream of deployment changes: the changes its tenant's notifications announced and it has
// not received yet, coalesced per deployment, loaded a chunk at a time as it reads them (so a slow reader
// costs memory for ids only, and loads nothing it does not read), and notices (changes missed, key revoked).
// It is a hand-written async iterator rather than an async generator: a generator waiting for changes could
// not be closed until the next change arrived, and a client that went away must stop counting at once.
import type { GraphQLError } from 'graphql';
import type { DeploymentReadModel } from '../deployment-read-model.ts';
import { mergeChange, type ChangeKind } from './change-notifications.ts';

/** A change as one subscriber receives it. `deployment` is null for a deletion. */
export interface DeploymentChange {
  kind: ChangeKind;
  deploymentId: string;
  deployment: DeploymentReadModel | null;
}

/** What the stream yields: a change, or an error event (the stream goes on after it unless it is ending). */
export type StreamItem = DeploymentChange | GraphQLError;

/**
 * Loads a chunk of changes (in the order given) as the subscriber may see them, leaving out the changes that
 * are not for it (a deployment its filter does not match).
 */
export type LoadChanges = (changes: [deploymentId: string, kind: ChangeKind][]) => Promise<DeploymentChange[]>;

export interface StreamOptions {
  load: LoadChanges;
  /** Deployments loaded in one statement. */
  chunkSize: number;
  /** Undelivered changes (distinct deployments) beyond which they are dropped for one `changesMissed` notice. */
  maxPending: number;
  /** The notice for changes that were dropped, and why. */
  changesMissed: (reason: 'overflow' | 'load-failure') => GraphQLError;
  /** Called once, when the stream ends for whatever reason (the subscriber went away, or `end`). */
  onClose: () => void;
  onLoadFailure: (error: unknown) => void;
}

export class DeploymentChangeStream implements AsyncIterableIterator<StreamItem> {
  private readonly options: StreamOptions;
  private readonly pending = new Map<string, ChangeKind>();
  /** Loaded changes of the current chunk, not yet read. */
  private ready: DeploymentChange[] = [];
  private readonly notices: GraphQLError[] = [];
  /** undefined: open; null: ends quietly; an error: ends after sending it. */
  private ending: GraphQLError | null | undefined;
  private closed = false;
  private wake: (() => void) | undefined;

  constructor(options: StreamOptions) {
    this.options = options;
  }

  /** Changes announced for the subscriber's tenant. */
  receive(changes: Iterable<[string, ChangeKind]>): void {
    if (this.ending !== undefined) return;
    for (const [deploymentId, kind] of changes) mergeChange(this.pending, deploymentId, kind);
    if (this.pending.size > this.options.maxPending) this.missed(this.options.changesMissed('overflow'));
    this.signal();
  }

  /** Drops what is waiting and tells the subscriber, once however often it happens before it reads the notice. */
  missed(notice: GraphQLError): void {
    if (this.ending !== undefined) return;
    this.pending.clear();
    this.ready = [];
    if (!this.notices.some((waiting) => waiting.extensions.code === notice.extensions.code)) this.notices.push(notice);
    this.signal();
  }

  /** Ends the stream: after `notice` if given, without delivering anything else. */
  end(notice?: GraphQLError): void {
    if (this.ending !== undefined) return;
    this.ending = notice ?? null;
    this.pending.clear();
    this.ready = [];
    this.notices.length = 0;
    this.signal();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<StreamItem>> {
    for (;;) {
      if (this.closed) return { done: true, value: undefined };
      if (this.ending !== undefined) {
        const last = this.ending;
        this.ending = null;
        if (last) return { done: false, value: last };
        this.close();
        continue;
      }
      const notice = this.notices.shift();
      if (notice) return { done: false, value: notice };
      const change = this.ready.shift();
      if (change) return { done: false, value: change };
      if (this.pending.size === 0) {
        await new Promise<void>((resolve) => { this.wake = resolve; });
        continue;
      }
      await this.loadChunk();
    }
  }

  async return(): Promise<IteratorResult<StreamItem>> {
    this.close();
    return { done: true, value: undefined };
  }

  private async loadChunk(): Promise<void> {
    const chunk: [string, ChangeKind][] = [];
    for (const entry of this.pending) {
      chunk.push(entry);
      if (chunk.length === this.options.chunkSize) break;
    }
    for (const [deploymentId] of chunk) this.pending.delete(deploymentId);
    try {
      const loaded = await this.options.load(chunk);
      // Ended or told of missed changes while loading: what was loaded is not delivered.
      if (this.ending === undefined && this.notices.length === 0) this.ready = loaded;
    } catch (error) {
      this.options.onLoadFailure(error);
      this.missed(this.options.changesMissed('load-failure'));
    }
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.pending.clear();
    this.ready = [];
    this.signal();
    this.options.onClose();
  }
}
