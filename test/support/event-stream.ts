// A client of the SSE answers of /graphql (`Accept: text/event-stream`), reading the raw stream the way a
// browser's fetch would: events as they arrive, comments (the heartbeats) counted, the end of the stream seen.
import { expect } from 'vitest';
import { readServerSentEvents, type StreamEvent } from './server-sent-events.ts';

export type { StreamEvent };

export interface EventStream {
  status: number;
  headers: Headers;
  /**
   * The next event, or a failure once `ms` passed without one: the bound of a wait, never a speed claim, so
   * generous by default (a loaded machine is slow, not wrong; speed is the benchmark's business).
   */
  next(ms?: number): Promise<StreamEvent>;
  /** The next `next` event's payload, parsed. */
  nextResult(ms?: number): Promise<any>;
  /** Every event received and not yet taken. */
  readonly buffered: StreamEvent[];
  /** Heartbeat comments (`:` lines) received so far. */
  readonly comments: number;
  /** Resolves when the server ends the response. */
  readonly ended: Promise<void>;
  close(): void;
}

export interface SubscribeOptions {
  variables?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export async function subscribe(url: string, key: string, query: string, options: SubscribeOptions = {}): Promise<EventStream> {
  const abort = new AbortController();
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': key, ...options.headers },
    body: JSON.stringify({ query, variables: options.variables }),
    signal: abort.signal,
  });
  const buffered: StreamEvent[] = [];
  let comments = 0;
  let wake: (() => void) | undefined;
  let finished = false;
  const ended = (async () => {
    try {
      await readServerSentEvents(response.body!, (event) => {
        buffered.push(event);
        wake?.();
      }, () => { comments++; });
    } catch {
      // aborted by close()
    } finally {
      finished = true;
      wake?.();
    }
  })();

  async function next(ms = 20_000): Promise<StreamEvent> {
    const deadline = Date.now() + ms;
    while (buffered.length === 0) {
      if (finished) throw new Error('the stream ended without another event');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no event within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        wake = () => { clearTimeout(timer); resolve(); };
      });
    }
    return buffered.shift()!;
  }

  return {
    status: response.status,
    headers: response.headers,
    next,
    async nextResult(ms) {
      const event = await next(ms);
      expect(event.event, JSON.stringify(event)).toBe('next');
      return JSON.parse(event.data);
    },
    buffered,
    get comments() { return comments; },
    ended,
    close: () => abort.abort(),
  };
}
