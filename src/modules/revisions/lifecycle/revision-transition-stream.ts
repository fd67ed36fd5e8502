// One subscriber's stream of a deployment's revision transitions: every transition, in the order the database
// committed them (NOTIFY delivers in commit order), none coalesced, since each status is news to a client that
// waits for one. Notices (transitions missed, key revoked) come first. Like DeploymentChangeStream it is a
// hand-written async iterator, so that a client that went away stops counting at once.
import type { GraphQLError } from 'graphql';
import type { RevisionTransition } from './revision-transitions.ts';

export type TransitionItem = RevisionTransition | GraphQLError;

export interface TransitionStreamOptions {
  /** Undelivered transitions beyond which they are dropped for one `transitionsMissed` notice. */
  maxPending: number;
  transitionsMissed: () => GraphQLError;
  /** Called once, when the stream ends for whatever reason (the subscriber went away, or `end`). */
  onClose: () => void;
}

export class RevisionTransitionStream implements AsyncIterableIterator<TransitionItem> {
  private readonly options: TransitionStreamOptions;
  private pending: RevisionTransition[] = [];
  private readonly notices: GraphQLError[] = [];
  /** undefined: open; null: ends quietly; an error: ends after sending it. */
  private ending: GraphQLError | null | undefined;
  private closed = false;
  private wake: (() => void) | undefined;

  constructor(options: TransitionStreamOptions) {
    this.options = options;
  }

  receive(transition: RevisionTransition): void {
    if (this.ending !== undefined) return;
    if (this.pending.length >= this.options.maxPending) {
      this.missed(this.options.transitionsMissed());
      return;
    }
    this.pending.push(transition);
    this.signal();
  }

  /** Drops what is waiting and tells the subscriber, once however often it happens before it reads the notice. */
  missed(notice: GraphQLError): void {
    if (this.ending !== undefined) return;
    this.pending = [];
    if (!this.notices.some((waiting) => waiting.extensions.code === notice.extensions.code)) this.notices.push(notice);
    this.signal();
  }

  /** Ends the stream: after `notice` if given, without delivering anything else. */
  end(notice?: GraphQLError): void {
    if (this.ending !== undefined) return;
    this.ending = notice ?? null;
    this.pending = [];
    this.notices.length = 0;
    this.signal();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<TransitionItem>> {
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
      const transition = this.pending.shift();
      if (transition) return { done: false, value: transition };
      await new Promise<void>((resolve) => { this.wake = resolve; });
    }
  }

  async return(): Promise<IteratorResult<TransitionItem>> {
    this.close();
    return { done: true, value: undefined };
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = [];
    this.signal();
    this.options.onClose();
  }
}
