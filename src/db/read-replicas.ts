// Read replicas (DATABASE_REPLICA_URLS): GraphQL and REST reads go to a streaming replica of the primary when
// one is in rotation, and to the primary otherwise. Every second each replica is probed: a replica that does
// not answer, is not in recovery (not a replica at all, or promoted), or has not replayed what the primary had
// written at the previous probe while its last replayed transaction is older than REPLICA_MAX_LAG, is taken
// out of rotation until a probe finds it well again. A replica that fails during a request is taken out at
// once, and the request is answered from the primary (graphql/replica-fallback.plugin.ts).
//
// Read your writes: after a caller's write commits, the primary's WAL position is recorded for the caller
// (write-positions.ts), and the caller's reads go only to a replica that had replayed that far at its last
// probe, to the primary while none has. Other callers' reads are not held back.
//
// What never reads a replica: API keys (a key revoked on the primary must not be found valid on a lagging
// replica, and a key created a moment ago must work), live updates (a change is loaded when its NOTIFY
// arrives, which a replica may not have replayed yet), and everything that writes.
//
// One ORM per replica, because MikroORM's own read replicas are chosen at random, with no health or lag.
import { MikroORM } from '@mikro-orm/postgresql';
import type { DatabaseTimeouts } from '../config.ts';
import { createOrmConfig, type AppOrm, type OrmConfigOptions } from './orm-config.ts';
import { redactUrl } from './database.ts';
import { parseWalPosition, UNKNOWN_WAL_POSITION, type WalPosition } from './wal-position.ts';
import { LocalWritePositions, type WritePositions } from './write-positions.ts';

export type ReplicaState = 'in rotation' | 'lagging' | 'unreachable' | 'not a replica';

export interface ReplicaStatus {
  /** `replica-1`, … in DATABASE_REPLICA_URLS' order (URLs carry passwords: never shown). */
  name: string;
  state: ReplicaState;
  /** Seconds behind the primary: 0 when it has replayed what the primary had written; null when unknown. */
  lagSeconds: number | null;
}

interface Replica extends ReplicaStatus {
  orm: AppOrm;
  url: string;
  /** How far it had replayed the primary's WAL at its last probe (it has replayed at least that much since). */
  replayed: WalPosition | undefined;
}

/** Where a read goes: a replica (named), or the primary. */
export interface ReadTarget {
  orm: AppOrm;
  replica: string | undefined;
}

const PROBE_EVERY_MS = 1000;
const PROBE_TIMEOUT_MS = 2000;
/**
 * How much longer than REPLICA_MAX_LAG a write position is kept. A replica stays in rotation only while its
 * last probe found it at most REPLICA_MAX_LAG behind, and that probe may be a probe interval and a probe
 * timeout old; a second more covers commit order. Past that, every replica in rotation has the write.
 */
const WRITE_POSITION_MARGIN_MS = PROBE_EVERY_MS + PROBE_TIMEOUT_MS + 1000;

export class ReadReplicas {
  readonly #primary: AppOrm;
  readonly #replicas: Replica[];
  readonly #maxLagSeconds: number;
  readonly #writePositions: WritePositions;
  readonly #onPrimary: ReadTarget;
  #next = 0;
  #timer: NodeJS.Timeout | undefined;
  /** The primary's WAL position at the previous probe: a replica that has replayed it is not behind. */
  #primaryLsn: string | undefined;

  private constructor(primary: AppOrm, replicas: Replica[], maxLagSeconds: number, writePositions: WritePositions) {
    this.#primary = primary;
    this.#replicas = replicas;
    this.#maxLagSeconds = maxLagSeconds;
    this.#writePositions = writePositions;
    this.#onPrimary = { orm: primary, replica: undefined };
  }

  /**
   * Connects to every replica (one that cannot be reached starts out of rotation) and starts probing. Callers'
   * write positions are kept in `writePositions` (this process's memory when not given).
   */
  static async open(primary: AppOrm, urls: string[], options: {
    maxLagSeconds: number; timeouts: DatabaseTimeouts; onStatement?: OrmConfigOptions['onStatement']; writePositions?: WritePositions;
  }): Promise<ReadReplicas> {
    const { poolMax, ...timeouts } = options.timeouts;
    // The primary's entities: a replica serves the same reads.
    const entities = primary.config.get('entities');
    const replicas = await Promise.all(urls.map(async (url, i) => {
      // MikroORM connects lazily: a replica that is down at start-up does not stop the service.
      const orm = (await MikroORM.init(createOrmConfig({ clientUrl: url, entities, poolMax, timeouts, onStatement: options.onStatement }))) as unknown as AppOrm;
      return { orm, url, name: `replica-${i + 1}`, state: 'unreachable' as ReplicaState, lagSeconds: null, replayed: undefined };
    }));
    const set = new ReadReplicas(primary, replicas, options.maxLagSeconds, options.writePositions ?? new LocalWritePositions());
    // Twice: the first probe learns the primary's position, which the second compares the replicas with.
    await set.probe();
    await set.probe();
    set.#timer = setInterval(() => void set.probe(), PROBE_EVERY_MS);
    set.#timer.unref();
    return set;
  }

  /**
   * Where `caller`'s read goes: the next replica in rotation that has replayed the caller's last write, or the
   * primary when none has (or none is in rotation). At once, unless the caller's write position is kept
   * elsewhere (Redis, the cluster primary) and a replica is in rotation.
   */
  pickFor(caller: string): ReadTarget | Promise<ReadTarget> {
    if (!this.#replicas.some((r) => r.state === 'in rotation')) return this.#onPrimary;
    const position = this.#writePositions.of(caller);
    return position instanceof Promise ? position.then((p) => this.#pick(p)) : this.#pick(position);
  }

  #pick(writtenUpTo: WalPosition | undefined): ReadTarget {
    const candidates = this.#replicas.filter((r) => r.state === 'in rotation'
      && (writtenUpTo === undefined || (r.replayed !== undefined && r.replayed >= writtenUpTo)));
    if (candidates.length === 0) return this.#onPrimary;
    const replica = candidates[this.#next++ % candidates.length]!;
    return { orm: replica.orm, replica: replica.name };
  }

  /**
   * Records, once `caller`'s write has committed, how far the primary's WAL then reached: the caller's reads
   * wait for a replica to replay that far. Resolves once every process that may serve the caller knows it.
   * The insert position, not the write position: with `synchronous_commit = off` the commit record may not
   * be written out yet, but it has been inserted. A primary that cannot say records an unknown position:
   * the caller's reads then go to the primary for as long as a position is kept.
   */
  async noteWrite(caller: string): Promise<void> {
    let position = UNKNOWN_WAL_POSITION;
    try {
      const [row] = await this.#primary.em.getConnection().execute<{ lsn: string }[]>('select pg_current_wal_insert_lsn()::text as lsn');
      if (row) position = parseWalPosition(row.lsn);
    } catch {
      // the write has committed: its answer stands, and the unknown position keeps the caller on the primary
    }
    await this.#writePositions.note(caller, position, this.#maxLagSeconds * 1000 + WRITE_POSITION_MARGIN_MS);
  }

  /** A request failed on this replica for want of a connection: out of rotation until a probe finds it well. */
  markUnreachable(name: string): void {
    const replica = this.#replicas.find((r) => r.name === name);
    if (!replica) return;
    replica.state = 'unreachable';
    replica.lagSeconds = null;
  }

  get statuses(): ReplicaStatus[] {
    return this.#replicas.map(({ name, state, lagSeconds }) => ({ name, state, lagSeconds }));
  }

  /** Where each replica's URL points, for the start-up log (passwords hidden). */
  describe(): string {
    return this.#replicas.map((r) => `${r.name} ${redactUrl(r.url)}: ${r.state}`).join('; ');
  }

  async probe(): Promise<void> {
    const previousLsn = this.#primaryLsn;
    try {
      const [row] = await this.#primary.em.getConnection().execute<{ lsn: string }[]>('select pg_current_wal_lsn()::text as lsn');
      this.#primaryLsn = row?.lsn;
    } catch {
      this.#primaryLsn = undefined; // the primary's own trouble is /ready's; replicas are judged on replay age alone
    }
    await Promise.all(this.#replicas.map((replica) => this.#probeOne(replica, previousLsn)));
  }

  async #probeOne(replica: Replica, primaryLsn: string | undefined): Promise<void> {
    try {
      const [row] = await withTimeout(replica.orm.em.getConnection().execute<{ recovering: boolean; replayed: string | null; caught_up: boolean | null; age: number | null }[]>(
        `select pg_is_in_recovery() as recovering,
                pg_last_wal_replay_lsn()::text as replayed,
                pg_last_wal_replay_lsn() >= ?::pg_lsn as caught_up,
                extract(epoch from now() - pg_last_xact_replay_timestamp())::float8 as age`,
        [primaryLsn ?? '0/0'],
      ));
      if (!row?.recovering) {
        replica.state = 'not a replica';
        replica.lagSeconds = null;
        replica.replayed = undefined;
        return;
      }
      replica.replayed = row.replayed === null ? undefined : parseWalPosition(row.replayed);
      // Caught up with what the primary had written a second ago: no lag, however old its last transaction
      // (an idle primary writes nothing to replay).
      const lag = primaryLsn && row.caught_up ? 0 : Math.max(0, Number(row.age ?? Infinity));
      replica.lagSeconds = Number.isFinite(lag) ? Math.round(lag * 10) / 10 : null;
      replica.state = lag <= this.#maxLagSeconds ? 'in rotation' : 'lagging';
    } catch {
      replica.state = 'unreachable';
      replica.lagSeconds = null;
      replica.replayed = undefined;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#writePositions.close();
    await Promise.all(this.#replicas.map((r) => r.orm.close()));
  }
}

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('probe timed out')), PROBE_TIMEOUT_MS);
    promise.then((value) => (clearTimeout(timer), resolve(value)), (error: unknown) => (clearTimeout(timer), reject(error)));
  });
}
