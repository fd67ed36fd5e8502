// What every live-update stream does the same way, whatever it carries: notices first (changes missed, key
// revoked), an end that may send one last notice, closing at once when its client goes away, and sleeping
// until something arrives. It is a hand-written async iterator rather than an async generator: a generator
// waiting for the next item could not be closed until that item arrived, and a client that went away must
// stop counting at once. Subclasses say what waits and how it becomes ready to send.
import type { GraphQLError } from 'graphql';

export abstract class LiveStream<Item> implements AsyncIterableIterator<Item | GraphQLError> {
  private readonly notices: GraphQLError[] = [];
  /** undefined: open; null: ends quietly; an error: ends after sending it. */
  private ending: GraphQLError | null | undefined;
  private closed = false;
  private wake: (() => void) | undefined;
  private readonly onClose: () => void;

  /** `onClose`: called once, when the stream ends for whatever reason (its client went away, or `end`). */
  constructor(onClose: () => void) {
    this.onClose = onClose;
  }

  /** An item ready to send, if one is. */
  protected abstract take(): Item | undefined;
  /** Whether something waits that `prepare` can make ready. */
  protected abstract hasWaiting(): boolean;
  /** Makes waiting things ready to send (loads them, say). */
  protected abstract prepare(): Promise<void>;
  /** Forgets whatever waits or is ready. */
  protected abstract drop(): void;

  /** Whether the stream is ending (it takes nothing more). */
  protected get isEnding(): boolean {
    return this.ending !== undefined;
  }

  /** Whether what `prepare` made ready may still be sent (nothing ended the stream or was missed meanwhile). */
  protected get mayDeliver(): boolean {
    return this.ending === undefined && this.notices.length === 0;
  }

  /** Drops what waits and tells the subscriber, once however often it happens before it reads the notice. */
  missed(notice: GraphQLError): void {
    if (this.ending !== undefined) return;
    this.drop();
    if (!this.notices.some((waiting) => waiting.extensions.code === notice.extensions.code)) this.notices.push(notice);
    this.signal();
  }

  /** Ends the stream: after `notice` if given, without delivering anything else. */
  end(notice?: GraphQLError): void {
    if (this.ending !== undefined) return;
    this.ending = notice ?? null;
    this.drop();
    this.notices.length = 0;
    this.signal();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<Item | GraphQLError>> {
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
      const item = this.take();
      if (item !== undefined) return { done: false, value: item };
      if (!this.hasWaiting()) {
        await new Promise<void>((resolve) => { this.wake = resolve; });
        continue;
      }
      await this.prepare();
    }
  }

  async return(): Promise<IteratorResult<Item | GraphQLError>> {
    this.close();
    return { done: true, value: undefined };
  }

  /** Wakes a reader waiting for something to arrive. */
  protected signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.drop();
    this.signal();
    this.onClose();
  }
}
