// The pool's client class: pg's own, except that every query is handed to pg with its callback, the
// client-side read timeout (`readTimeoutMillis`, in place of pg's `query_timeout`) is kept here, and a client
// whose connection ends while it is checked out gives itself back to the pool (see `release` below).
//
// Why: pg 8 gives a query its callback after making it in two cases, its promise form (how MikroORM's driver,
// Kysely, asks for every statement) and its `query_timeout` (which wraps the callback). Either way, measured
// on Node 24 with pages of 100 deployments read in a loop (`--trace-gc-nvp`), the rows outlived their
// statement: about half of what the loop allocated between two scavenges was still reachable at the next one
// (13-18 MB), was copied, then promoted to the old generation for mark-compact to clear later, and scavenges
// took 17-25 ms. With the callback given when the query is made (and the same timeout kept by a timer of our
// own), 0.1-0.5 MB survived and scavenges took 0.5-1.5 ms. Which reference holds the rows was not pinned down;
// a heap snapshot shows none alive, so it is garbage that scavenges cannot see as such. In the service, garbage
// collection was the largest single item of a full page's profile (docs/performance.md#where-the-time-goes).
import pg from 'pg';

type Callback = (error: Error | null, result?: unknown) => void;
const pgQuery = pg.Client.prototype.query as (this: pg.Client, config: unknown, values?: unknown, callback?: Callback) => unknown;

export interface CallbackQueryClientConfig extends pg.ClientConfig {
  /**
   * A statement that gets no answer for this long fails with pg's own message ("Query read timeout") and its
   * connection is closed: a server that stopped answering (a network partition) cannot hold a request, and
   * the pool does not hand the connection out again. 0 or absent: no limit.
   */
  readTimeoutMillis?: number;
}

/** Clients whose connection is gone or going, with why: released, they leave the pool (see `release`). */
const lostConnections = new WeakMap<pg.Client, Error>();

/** The connection of a client that stopped getting answers: closing it fails what it still waits for. */
const closeConnection = (client: pg.Client) => (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();

function queryWithCallback(this: CallbackQueryClient, config: unknown, values?: unknown, callback?: unknown): unknown {
  if (typeof (config as { submit?: unknown } | null)?.submit === 'function') return pgQuery.call(this, config, values, callback as Callback);
  const done = (typeof values === 'function' ? values : callback ?? (config as { callback?: unknown } | null)?.callback) as Callback | undefined;
  const parameters = typeof values === 'function' ? undefined : values;
  const run = (answer: Callback) => {
    const settle: Callback = (error, result) => {
      // The server closes the connection after a FATAL error (57P01, its backend terminated): its socket may
      // still be open when the statement's caller releases the client, which must not go back to the pool.
      if ((error as { severity?: unknown } | null)?.severity === 'FATAL') lostConnections.set(this, error!);
      answer(error, result);
    };
    const limit = this.readTimeoutMillis;
    if (!limit) return void pgQuery.call(this, config, parameters, settle);
    let settled = false;
    const once: Callback = (error, result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      settle(error, result);
    };
    const timer = setTimeout(() => {
      const error = new Error('Query read timeout');
      lostConnections.set(this, error);
      once(error);
      closeConnection(this);
    }, limit);
    pgQuery.call(this, config, parameters, once);
  };
  if (done) return void run(done);
  return new Promise((resolve, reject) => run((error, result) => (error ? reject(error) : resolve(result))));
}

type Release = (error?: Error | boolean) => void;

export class CallbackQueryClient extends pg.Client {
  readonly readTimeoutMillis: number;
  /** pg-pool's release of the current checkout; undefined while the client is in the pool. */
  #poolRelease: Release | undefined;
  #gaveItselfBack = false;

  constructor(config: CallbackQueryClientConfig = {}) {
    super(config);
    this.readTimeoutMillis = config.readTimeoutMillis ?? 0;
    this.once('end', () => {
      if (!lostConnections.has(this)) lostConnections.set(this, new Error('The connection ended'));
      const release = this.#poolRelease;
      if (!release) return;
      this.#poolRelease = undefined;
      this.#gaveItselfBack = true;
      release(lostConnections.get(this));
    });
  }

  // Kysely (MikroORM's driver) releases a transaction's client only after its ROLLBACK or COMMIT succeeded
  // (kysely-org/kysely#1990), and neither can once the connection is gone (a terminated backend, a restarted
  // server, the read timeout above): the client then stayed checked out for good, and after DB_POOL_MAX such
  // losses every request waited for a connection that never came. So the client gives itself back when its
  // connection ends (pg-pool drops a client released with an error), and a release after that is a no-op.
  // Kysely never releases with an error either: a client whose connection is going is released with one here,
  // or the next statement to check it out would fail. pg-pool assigns `release` at every checkout.
  get release(): Release {
    return (error) => {
      if (this.#gaveItselfBack) return;
      const release = this.#poolRelease;
      this.#poolRelease = undefined;
      if (!release) throw new Error('Release called on a client that is not checked out of the pool');
      release(error || lostConnections.get(this));
    };
  }

  set release(release: Release) {
    this.#poolRelease = release;
  }
}
// Assigned rather than declared: pg's typings give query() a dozen overloads, and this one serves them all.
Object.defineProperty(CallbackQueryClient.prototype, 'query', { value: queryWithCallback, writable: true, configurable: true });
