// Verified API keys, kept so that a request does not pay a database round trip to authenticate. Safe only
// while revocations reach it: it answers only while its LISTEN connection is up (and is emptied whenever
// that connection drops), hears this process's revocations directly, and keeps an entry one minute at most.
import pg from 'pg';
import { REVOCATION_CHANNEL, revocations } from './api-key-revocations.ts';

export interface VerifiedKey {
  apiKeyId: string;
  tenantIds: string[];
  mayReadSecrets: boolean;
}

const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;
const RECONNECT_MS = 1_000;

export class ApiKeyCache {
  private readonly entries = new Map<string, { key: VerifiedKey; expires: number }>();
  private listening = false;
  private changes = 0;
  private client: pg.Client | undefined;
  private stopped = false;
  private readonly onRevoked = (apiKeyId: string) => this.evict(apiKeyId);

  /** The verified key for a key hash, if cached and the cache is trustworthy right now. */
  get(keyHash: string): VerifiedKey | undefined {
    if (!this.listening) return undefined;
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (entry.expires < Date.now()) {
      this.entries.delete(keyHash);
      return undefined;
    }
    return entry.key;
  }

  /**
   * Moves on with every revocation heard and every loss of the LISTEN connection. A key read from the database
   * is cached only if nothing moved since the read began: a revocation that arrives while the read is in
   * flight must not be overwritten by the (older) row the read returns.
   */
  get generation(): number {
    return this.changes;
  }

  set(keyHash: string, key: VerifiedKey, readAtGeneration: number): void {
    if (!this.listening || readAtGeneration !== this.changes) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(keyHash, { key, expires: Date.now() + TTL_MS });
  }

  evict(apiKeyId: string): void {
    this.changes++;
    for (const [hash, entry] of this.entries) if (entry.key.apiKeyId === apiKeyId) this.entries.delete(hash);
  }

  /** Starts listening for revocations on the database; the cache serves entries only while this holds. */
  async listen(clientUrl: string): Promise<void> {
    revocations.on('revoked', this.onRevoked);
    await this.connect(clientUrl);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.lose();
    revocations.off('revoked', this.onRevoked);
    await this.client?.end().catch(() => {});
  }

  private async connect(clientUrl: string): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: clientUrl, connectionTimeoutMillis: 5000 });
    this.client = client;
    client.on('notification', (message) => { if (message.payload) this.evict(message.payload); });
    client.on('error', () => this.reconnect(clientUrl, client));
    client.on('end', () => this.reconnect(clientUrl, client));
    try {
      await client.connect();
      await client.query(`LISTEN ${REVOCATION_CHANNEL}`);
      this.listening = client === this.client && !this.stopped;
    } catch {
      this.reconnect(clientUrl, client);
    }
  }

  /**
   * Forgets everything (a revocation may have been missed) and tries again shortly. One failure reports
   * itself several times ('error', then 'end'; a failed connect, then 'end'): only the first schedules a
   * new connection, so there is never more than one.
   */
  private reconnect(clientUrl: string, client: pg.Client): void {
    if (client !== this.client) return;
    this.client = undefined;
    this.lose();
    client.end().catch(() => {});
    if (!this.stopped) setTimeout(() => void this.connect(clientUrl), RECONNECT_MS).unref();
  }

  private lose(): void {
    this.changes++;
    this.listening = false;
    this.entries.clear();
  }
}
