// The process's one LISTEN connection: PostgreSQL NOTIFY on a few channels (key revocations, deployment
// changes), fanned out in the process. It connects with DATABASE_DIRECT_URL, or DATABASE_URL (the primary: a
// replica hears nothing of the primary's NOTIFY, and a transaction-mode pooler keeps no session to LISTEN on).
// A lost connection is reported (`lost`: whatever was notified meanwhile is gone) and tried again every
// second; `listening` says when it is back.
import { EventEmitter } from 'node:events';
import pg from 'pg';

const RECONNECT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 5_000;

export interface DatabaseNotificationEvents {
  /** A NOTIFY on one of the channels. */
  notification: [channel: string, payload: string];
  /** LISTEN holds on every channel (at the start, and after each reconnection). */
  listening: [];
  /** The connection was lost; notifications sent until the next `listening` are never heard. */
  lost: [];
}

export class DatabaseNotifications extends EventEmitter<DatabaseNotificationEvents> {
  private readonly channels: readonly string[];
  private client: pg.Client | undefined;
  private isListening = false;
  private stopped = false;

  constructor(channels: readonly string[]) {
    super();
    // Channel names are ours, written into LISTEN statements: plain identifiers only.
    for (const channel of channels) if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: "${channel}"`);
    this.channels = channels;
    // Listeners may be many (one per open stream is not the plan, but several services share one connection).
    this.setMaxListeners(0);
  }

  /** Whether notifications are being heard right now. */
  get listening(): boolean {
    return this.isListening;
  }

  /** Connects and listens; resolves after the first attempt (on failure it keeps trying in the background). */
  async start(clientUrl: string): Promise<void> {
    await this.connect(clientUrl);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const client = this.client;
    this.client = undefined;
    this.lose();
    await client?.end().catch(() => {});
  }

  private async connect(clientUrl: string): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: clientUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    this.client = client;
    client.on('notification', (message) => {
      if (client === this.client) this.emit('notification', message.channel, message.payload ?? '');
    });
    client.on('error', () => this.reconnect(clientUrl, client));
    client.on('end', () => this.reconnect(clientUrl, client));
    try {
      await client.connect();
      await client.query(this.channels.map((channel) => `LISTEN ${channel};`).join(' '));
      if (client !== this.client || this.stopped) return;
      this.isListening = true;
      this.emit('listening');
    } catch {
      this.reconnect(clientUrl, client);
    }
  }

  /**
   * Tries again shortly. One failure reports itself several times ('error', then 'end'; a failed connect, then
   * 'end'): only the first schedules a new connection, so there is never more than one.
   */
  private reconnect(clientUrl: string, client: pg.Client): void {
    if (client !== this.client) return;
    this.client = undefined;
    this.lose();
    client.end().catch(() => {});
    if (!this.stopped) setTimeout(() => void this.connect(clientUrl), RECONNECT_MS).unref();
  }

  private lose(): void {
    // Reported at every loss, also of a connection that never got to listen: whoever waits for `listening`
    // must know that what it has not heard so far may be missing.
    this.isListening = false;
    this.emit('lost');
  }
}
