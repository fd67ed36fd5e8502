// One subscriber's stream of a deployment's revision transitions: every transition, in the order the database
// committed them (NOTIFY delivers in commit order), none coalesced, since each status is news to a client that
// waits for one; what every live stream does alike (notices, ending, closing) is live-stream.ts'.
import type { GraphQLError } from 'graphql';
import { LiveStream } from '../../deployments/live/live-stream.ts';
import type { RevisionTransition } from './revision-transitions.ts';

export type TransitionItem = RevisionTransition | GraphQLError;

export interface TransitionStreamOptions {
  /** Undelivered transitions beyond which they are dropped for one `transitionsMissed` notice. */
  maxPending: number;
  transitionsMissed: () => GraphQLError;
  /** Called once, when the stream ends for whatever reason (the subscriber went away, or `end`). */
  onClose: () => void;
}

export class RevisionTransitionStream extends LiveStream<RevisionTransition> {
  private readonly options: TransitionStreamOptions;
  private pending: RevisionTransition[] = [];

  constructor(options: TransitionStreamOptions) {
    super(options.onClose);
    this.options = options;
  }

  receive(transition: RevisionTransition): void {
    if (this.isEnding) return;
    if (this.pending.length >= this.options.maxPending) {
      this.missed(this.options.transitionsMissed());
      return;
    }
    this.pending.push(transition);
    this.signal();
  }

  protected take(): RevisionTransition | undefined {
    return this.pending.shift();
  }

  /** Transitions arrive ready to send: when none is, none waits. */
  protected hasWaiting(): boolean {
    return false;
  }

  protected async prepare(): Promise<void> {}

  protected drop(): void {
    this.pending = [];
  }
}
