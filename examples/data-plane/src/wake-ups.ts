// How the simulator learns of work without asking in a loop: the `dataPlaneWakeUps` subscription, over
// Server-Sent Events (POST /graphql, Accept: text/event-stream). The gateway sends an event when a revision
// may be claimable by this key's data plane, from any gateway and worker (the database's NOTIFY), and one at
// once when the subscription opens. A stream that ends (a gateway restart) or fails is opened again after a
// pause; its first event then covers whatever was queued meanwhile.
import type { Settings } from './gateway.ts';
import { DATA_PLANE_WAKE_UPS } from './operations.ts';

/** After a stream ended or could not be opened: how long before opening it again. */
const REOPEN_MS = 1000;

export class WakeUps {
  readonly #settings: Settings;
  readonly #stop: AbortSignal;
  readonly #log: (line: string) => void;
  /** An event arrived that no `wait` has taken yet (events are coalesced: one claim round answers all). */
  #pending = false;
  #wake: (() => void) | undefined;

  constructor(settings: Settings, stop: AbortSignal, log: (line: string) => void) {
    this.#settings = settings;
    this.#stop = stop;
    this.#log = log;
    stop.addEventListener('abort', () => this.#arrived(), { once: true });
    void this.#keepOpen();
  }

  /** Forgets the events so far: the claim about to be sent answers them. */
  take(): void {
    this.#pending = false;
  }

  /** Makes the next `wait` return at once: the simulator itself knows there may be more to claim. */
  again(): void {
    this.#arrived();
  }

  /** Resolves at the next event (at once if one came since `take`), or when the simulator stops. */
  wait(): Promise<void> {
    if (this.#pending || this.#stop.aborted) return Promise.resolve();
    return new Promise((resolve) => { this.#wake = resolve; });
  }

  #arrived(): void {
    this.#pending = true;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async #keepOpen(): Promise<void> {
    while (!this.#stop.aborted) {
      try {
        await this.#read();
        this.#log('wake-up stream ended (the gateway restarting?); opening it again');
      } catch (error) {
        if (this.#stop.aborted) return;
        this.#log(`wake-up stream failed (${error instanceof Error ? error.message : String(error)}); opening it again in ${REOPEN_MS / 1000} s`);
        // Without a stream nothing wakes the simulator: it claims once each time the stream cannot be opened (a
        // gateway without subscriptions gets a claim a second, as before wake-ups existed).
        this.#arrived();
      }
      await new Promise((resolve) => setTimeout(resolve, REOPEN_MS));
    }
  }

  /** One stream, read until it ends: each `next` event is a wake-up; an error event is said and ends it. */
  async #read(): Promise<void> {
    const response = await fetch(`${this.#settings.gatewayUrl}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': this.#settings.reconcileKey,
        ...(this.#settings.tenantId && { 'x-tenant-id': this.#settings.tenantId }),
      },
      body: JSON.stringify({ query: DATA_PLANE_WAKE_UPS }),
      signal: this.#stop,
    });
    if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of response.body) {
      text += decoder.decode(chunk, { stream: true });
      for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
        const lines = text.slice(0, end).split('\n');
        text = text.slice(end + 2);
        const event = lines.find((line) => line.startsWith('event:'))?.slice(6).trim();
        const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n');
        if (event !== 'next') continue;
        const { errors } = JSON.parse(data) as { errors?: { message: string }[] };
        if (errors?.length) throw new Error(errors.map((error) => error.message).join('; '));
        this.#arrived();
      }
    }
  }
}
