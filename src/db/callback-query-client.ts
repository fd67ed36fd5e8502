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

/**
 * A statement text that starts with this is not sent on its own: it goes to PostgreSQL with the client's next
 * statement, in the same message (db/statements-sent-with-next.ts says which statements may wait).
 */
export const SENT_WITH_NEXT = '/* sent with the next statement */ ';

/** A transaction's start: its reply says nothing, so it always goes with the transaction's first statement. */
const TRANSACTION_START = /^\s*(begin|start transaction)\b/i;

/** The statements each client holds for its next one. */
const waiting = new WeakMap<pg.Client, string[]>();

/** What a statement that waits answers at once: no rows, nothing changed yet. */
const NOTHING_YET = Object.freeze({ command: null, rowCount: 0, oid: 0, rows: Object.freeze([]), fields: Object.freeze([]) });

/** A text sent with the simple protocol (no parameters, no name): the only kind that may carry several statements. */
const simpleText = (config: unknown, parameters: unknown): string | undefined => (typeof config === 'string'
  && (parameters === undefined || (Array.isArray(parameters) && parameters.length === 0)) ? config : undefined);

function queryWithCallback(this: CallbackQueryClient, config: unknown, values?: unknown, callback?: unknown): unknown {
  const held = waiting.get(this);
  if (typeof (config as { submit?: unknown } | null)?.submit === 'function') {
    if (!held) return pgQuery.call(this, config, values, callback as Callback);
    // A cursor or another submittable goes alone: what waits is sent before it, on its own.
    waiting.delete(this);
    return void pgQuery.call(this, held.join(';\n'), undefined, (error) => (error ? (config as { handleError(e: Error): void }).handleError(error) : pgQuery.call(this, config, values, callback as Callback)));
  }
  const done = (typeof values === 'function' ? values : callback ?? (config as { callback?: unknown } | null)?.callback) as Callback | undefined;
  const parameters = typeof values === 'function' ? undefined : values;
  const text = simpleText(config, parameters);
  const waits = text === undefined ? undefined : text.startsWith(SENT_WITH_NEXT) ? text.slice(SENT_WITH_NEXT.length) : TRANSACTION_START.test(text) ? text : undefined;
  if (waits !== undefined) {
    if (held) held.push(waits);
    else waiting.set(this, [waits]);
    if (done) return void queueMicrotask(() => done(null, NOTHING_YET));
    return Promise.resolve(NOTHING_YET);
  }
  if (held) {
    waiting.delete(this);
    // A rollback undoes what waits: it need not run; nor the rollback itself when its BEGIN still waits (the
    // server has no transaction to roll back).
    if (/^\s*rollback\b/i.test(text ?? '') && TRANSACTION_START.test(held[0]!)) {
      if (done) return void queueMicrotask(() => done(null, NOTHING_YET));
      return Promise.resolve(NOTHING_YET);
    }
    if (!/^\s*rollback\b/i.test(text ?? '')) {
      if (text !== undefined) return sendNow.call(this, [...held, text].join(';\n'), undefined, done, true);
      // A statement with parameters is sent with the extended protocol, one statement a message: what waits goes first.
      const first = new Promise<unknown>((resolve, reject) => sendNow.call(this, held.join(';\n'), undefined, (error, result) => (error ? reject(error) : resolve(result))));
      const then = first.then(() => new Promise((resolve, reject) => sendNow.call(this, config, parameters, (error, result) => (error ? reject(error) : resolve(result)))));
      if (done) return void then.then((result) => done(null, result), (error: Error) => done(error));
      return then;
    }
  }
  return sendNow.call(this, config, parameters, done);
}

/** Sends one query message; `lastResult`: it carried several statements, and its caller's is the last one. */
function sendNow(this: CallbackQueryClient, config: unknown, parameters: unknown, done: Callback | undefined, lastResult = false): unknown {
  const run = (reply: Callback) => {
    const answer: Callback = lastResult ? (error, result) => reply(error, Array.isArray(result) ? result.at(-1) : result) : reply;
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
      // Statements still waiting belong to this checkout's transaction, which ended without them: never to the next.
      const unsent = waiting.has(this) ? new Error('Statements waiting for a next one were never sent') : undefined;
      waiting.delete(this);
      release(error || lostConnections.get(this) || unsent);
    };
  }

  set release(release: Release) {
    this.#poolRelease = release;
  }
}
// Assigned rather than declared: pg's typings give query() a dozen overloads, and this one serves them all.
Object.defineProperty(CallbackQueryClient.prototype, 'query', { value: queryWithCallback, writable: true, configurable: true });
