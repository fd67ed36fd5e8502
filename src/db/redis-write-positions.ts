// Read your writes across gateways (REDIS_URL): each caller's last write position is a Redis key, set before
// the write's answer leaves and read by whichever gateway serves the caller's next read. A key lives as long
// as a replica in rotation may still lack the write (read-replicas.ts says how long).
// If Redis cannot answer, a read goes to the primary: without the record, a replica could serve the caller a
// past its own write. Requests never wait on a Redis that is not there (no offline queue, short timeouts).
import { Redis } from 'ioredis';
import type { Logger } from '../observability/logger.ts';
import { fromSortableWalPosition, sortableWalPosition, UNKNOWN_WAL_POSITION, type WalPosition } from './wal-position.ts';
import type { WritePositions } from './write-positions.ts';

/** Keeps the higher of the stored and the new position (two writes of one caller may finish in either order). */
const NOTE_HIGHER = `
local stored = redis.call('GET', KEYS[1])
if (not stored) or stored < ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1`;

export class RedisWritePositions implements WritePositions {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #logger: Logger | undefined;
  #warned = false;

  constructor(url: string, options: { keyPrefix?: string; logger?: Logger } = {}) {
    this.#prefix = `${options.keyPrefix ?? 'deployments-gateway'}:write-position:`;
    this.#logger = options.logger;
    this.#redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 500, connectTimeout: 2000 });
    this.#redis.on('error', (error: Error) => this.#warn(error));
    this.#redis.on('ready', () => { this.#warned = false; });
  }

  async note(caller: string, position: WalPosition, ttlMs: number): Promise<void> {
    try {
      await this.#redis.eval(NOTE_HIGHER, 1, this.#prefix + caller, sortableWalPosition(position), String(Math.ceil(ttlMs)));
    } catch (error) {
      this.#warn(error as Error);
    }
  }

  async of(caller: string): Promise<WalPosition | undefined> {
    try {
      const stored = await this.#redis.get(this.#prefix + caller);
      return stored === null ? undefined : fromSortableWalPosition(stored);
    } catch {
      return UNKNOWN_WAL_POSITION;
    }
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }

  #warn(error: Error): void {
    if (!this.#warned) this.#logger?.warn({ err: error }, 'Redis unreachable; reads go to the primary until it answers (read your writes)');
    this.#warned = true;
  }
}
