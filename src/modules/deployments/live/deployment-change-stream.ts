// One subscriber's stream of deployment changes: the changes its tenant's notifications announced and it has
// not received yet, coalesced per deployment, loaded a chunk at a time as it reads them (so a slow reader
// costs memory for ids only, and loads nothing it does not read), and notices (changes missed, key revoked);
// what every live stream does alike is live-stream.ts'.
import type { GraphQLError } from 'graphql';
import type { DeploymentReadModel } from '../deployment-read-model.ts';
import { mergeChange, type ChangeKind } from './change-notifications.ts';
import { LiveStream } from './live-stream.ts';

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

export class DeploymentChangeStream extends LiveStream<DeploymentChange> {
  private readonly options: StreamOptions;
  private readonly pending = new Map<string, ChangeKind>();
  /** Loaded changes of the current chunk, not yet read. */
  private ready: DeploymentChange[] = [];

  constructor(options: StreamOptions) {
    super(options.onClose);
    this.options = options;
  }

  /** Changes announced for the subscriber's tenant. */
  receive(changes: Iterable<[string, ChangeKind]>): void {
    if (this.isEnding) return;
    for (const [deploymentId, kind] of changes) mergeChange(this.pending, deploymentId, kind);
    if (this.pending.size > this.options.maxPending) this.missed(this.options.changesMissed('overflow'));
    this.signal();
  }

  protected take(): DeploymentChange | undefined {
    return this.ready.shift();
  }

  protected hasWaiting(): boolean {
    return this.pending.size > 0;
  }

  /** Loads the next chunk of waiting changes. */
  protected async prepare(): Promise<void> {
    const chunk: [string, ChangeKind][] = [];
    for (const entry of this.pending) {
      chunk.push(entry);
      if (chunk.length === this.options.chunkSize) break;
    }
    for (const [deploymentId] of chunk) this.pending.delete(deploymentId);
    try {
      const loaded = await this.options.load(chunk);
      // Ended or told of missed changes while loading: what was loaded is not delivered.
      if (this.mayDeliver) this.ready = loaded;
    } catch (error) {
      this.options.onLoadFailure(error);
      this.missed(this.options.changesMissed('load-failure'));
    }
  }

  protected drop(): void {
    this.pending.clear();
    this.ready = [];
  }
}
