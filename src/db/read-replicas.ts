// Read replicas (DATABASE_REPLICA_URLS): GraphQL and REST reads go to a streaming replica of the primary when
// one is in rotation, and to the primary otherwise. Every second each replica is probed: a replica that does
// not answer, is not in recovery (not a replica at all, or promoted), or has not replayed what the primary had
// written at the previous probe while its last replayed transaction is older than REPLICA_MAX_LAG, is taken
// out of rotation until a probe finds it well again. A replica that fails during a request is taken out at
// once, and the request is answered from the primary (graphql/replica-fallback.plugin.ts).
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
}

const PROBE_EVERY_MS = 1000;
const PROBE_TIMEOUT_MS = 2000;

export class ReadReplicas {
  readonly #primary: AppOrm;
  readonly #replicas: Replica[];
  readonly #maxLagSeconds: number;
  #next = 0;
  #timer: NodeJS.Timeout | undefined;
  /** The primary's WAL position at the previous probe: a replica that has replayed it is not behind. */
  #primaryLsn: string | undefined;

  private constructor(primary: AppOrm, replicas: Replica[], maxLagSeconds: number) {
    this.#primary = primary;
    this.#replicas = replicas;
    this.#maxLagSeconds = maxLagSeconds;
  }

  /** Connects to every replica (one that cannot be reached starts out of rotation) and starts probing. */
  static async open(primary: AppOrm, urls: string[], options: {
    maxLagSeconds: number; timeouts: DatabaseTimeouts; onStatement?: OrmConfigOptions['onStatement'];
  }): Promise<ReadReplicas> {
    const { poolMax, ...timeouts } = options.timeouts;
    // The primary's entities: a replica serves the same reads.
    const entities = primary.config.get('entities');
    const replicas = await Promise.all(urls.map(async (url, i) => {
      // MikroORM connects lazily: a replica that is down at start-up does not stop the service.
      const orm = (await MikroORM.init(createOrmConfig({ clientUrl: url, entities, poolMax, timeouts, onStatement: options.onStatement }))) as unknown as AppOrm;
      return { orm, url, name: `replica-${i + 1}`, state: 'unreachable' as ReplicaState, lagSeconds: null };
    }));
    const set = new ReadReplicas(primary, replicas, options.maxLagSeconds);
    // Twice: the first probe learns the primary's position, which the second compares the replicas with.
    await set.probe();
    await set.probe();
    set.#timer = setInterval(() => void set.probe(), PROBE_EVERY_MS);
    set.#timer.unref();
    return set;
  }

  /** The ORM a read goes to: the next replica in rotation, or the primary when none is. */
  pick(): { orm: AppOrm; replica: string | undefined } {
    const inRotation = this.#replicas.filter((r) => r.state === 'in rotation');
    if (inRotation.length === 0) return { orm: this.#primary, replica: undefined };
    const replica = inRotation[this.#next++ % inRotation.length]!;
    return { orm: replica.orm, replica: replica.name };
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
      const [row] = await withTimeout(replica.orm.em.getConnection().execute<{ recovering: boolean; caught_up: boolean | null; age: number | null }[]>(
        `select pg_is_in_recovery() as recovering,
                pg_last_wal_replay_lsn() >= ?::pg_lsn as caught_up,
                extract(epoch from now() - pg_last_xact_replay_timestamp())::float8 as age`,
        [primaryLsn ?? '0/0'],
      ));
      if (!row?.recovering) {
        replica.state = 'not a replica';
        replica.lagSeconds = null;
        return;
      }
      // Caught up with what the primary had written a second ago: no lag, however old its last transaction
      // (an idle primary writes nothing to replay).
      const lag = primaryLsn && row.caught_up ? 0 : Math.max(0, Number(row.age ?? Infinity));
      replica.lagSeconds = Number.isFinite(lag) ? Math.round(lag * 10) / 10 : null;
      replica.state = lag <= this.#maxLagSeconds ? 'in rotation' : 'lagging';
    } catch {
      replica.state = 'unreachable';
      replica.lagSeconds = null;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all(this.#replicas.map((r) => r.orm.close()));
  }
}

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('probe timed out')), PROBE_TIMEOUT_MS);
    promise.then((value) => (clearTimeout(timer), resolve(value)), (error: unknown) => (clearTimeout(timer), reject(error)));
  });
}
