// Which failures count as "the database cannot be reached" (db/connection-loss.ts): those answer 503 with
// Retry-After and feed the throttled warning of observability/logger.ts, so an error the request caused must
// never be one of them. Every error here is a real one, from a real PostgreSQL, as the service gets it.
import { Writable } from 'node:stream';
import { GraphQLError } from 'graphql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../src/db/connection-loss.ts';
import { createLogger, yogaLogger } from '../src/observability/logger.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ migrated: false });
  await db.query('create table pair (id int primary key, name text not null)');
  await db.query("insert into pair values (1, 'one')");
});
afterAll(() => db?.drop());

/** What a statement through the ORM fails with (MikroORM writes the values into the statement's text). */
async function ormError(sql: string, values: unknown[]): Promise<Error> {
  try {
    await db.orm.em.fork().execute(sql, values);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`${sql} did not fail`);
}

/** As a resolver's error reaches Yoga's logger and the REST door: wrapped in a GraphQLError. */
const asGraphQLError = (error: Error) => new GraphQLError(error.message, { originalError: error });

/** The lines yogaLogger writes for `error`, as Yoga hands it an unexpected error. */
function loggedFor(error: Error): Array<{ level: string; msg: string }> {
  const lines: string[] = [];
  const destination = new Writable({ write(chunk, _encoding, done) { lines.push(...chunk.toString().split('\n').filter(Boolean)); done(); } });
  yogaLogger(createLogger('info', destination)).error(error);
  return lines.map((line) => JSON.parse(line));
}

describe('errors the request caused', () => {
  it('a NUL character in a value: the server refuses the statement\'s message (08P01, ERROR), not a 503', async () => {
    // The ORM inlines values, and a NUL ends the statement's text early inside the protocol message.
    const error = await ormError('select ? as x', ['secret\u0000name']);
    expect(error).toMatchObject({ code: '08P01', severity: 'ERROR' });
    expect(isDatabaseUnavailable(error)).toBe(false);
    expect(isDatabaseUnavailable(asGraphQLError(error))).toBe(false);
    const logged = loggedFor(asGraphQLError(error));
    expect(logged.map(({ level, msg }) => ({ level, msg }))).toEqual([{ level: 'error', msg: 'invalid message format' }]);
    // The connection it failed on serves the next statement.
    expect(await db.orm.em.fork().execute('select 1 as one')).toEqual([{ one: 1 }]);
  });

  it('a data exception whose message quotes the input ("Connection terminated") is not a 503', async () => {
    const error = await ormError('select ?::uuid as id', ['Connection terminated']);
    expect(error).toMatchObject({ code: '22P02', message: expect.stringContaining('Connection terminated') });
    expect(isDatabaseUnavailable(error)).toBe(false);
    expect(isDatabaseUnavailable(asGraphQLError(error))).toBe(false);
    expect(loggedFor(asGraphQLError(error)).map(({ msg }) => msg)).not.toContain('database unavailable: answering 503');
  });

  it.each([
    ['a data exception (22)', 'select 1 / 0 as x, ? as y'],
    ['an integrity violation (23)', 'insert into pair values (1, ?)'],
    ['a syntax error (42) quoting the input', 'select ? ?'],
  ])('%s is not a 503, whatever the text sent', async (_name, sql) => {
    const error = await ormError(sql, sql.split('?').slice(1).map(() => 'Connection terminated'));
    expect(error).toMatchObject({ code: expect.stringMatching(/^(22|23|42)/), severity: 'ERROR' });
    expect(isDatabaseUnavailable(asGraphQLError(error))).toBe(false);
  });
});

describe('a database that cannot be reached', () => {
  it('a connection the server ended (57P01, FATAL) is one', async () => {
    const victim = new pg.Client({ connectionString: db.url });
    await victim.connect();
    // Every error, not once: the socket's close after the FATAL is a second 'error', uncaught otherwise.
    const ended = new Promise<Error>((resolve) => victim.on('error', resolve));
    const { rows: [{ pid }] } = await victim.query('select pg_backend_pid() as pid');
    await db.query('select pg_terminate_backend($1)', [pid]);
    const error = await ended;
    expect(error).toMatchObject({ code: '57P01', severity: 'FATAL' });
    expect(isDatabaseUnavailable(asGraphQLError(error))).toBe(true);
    // And its next statement fails without a SQLSTATE: the client's own "Connection terminated".
    const next = await victim.query('select 1').then(() => undefined, (failure: Error) => failure);
    expect(next).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(next)).toBe(true);
    await victim.end().catch(() => {});
  });

  it('a refused connection (ECONNREFUSED) and a statement timeout (57014, DB_STATEMENT_TIMEOUT_MS) are', async () => {
    const refused = await new pg.Client({ connectionString: 'postgresql://postgres@127.0.0.1:1/gone' }).connect().then(() => undefined, (failure: Error) => failure);
    expect(isDatabaseUnavailable(asGraphQLError(refused!))).toBe(true);
    const slow = new pg.Client({ connectionString: db.url, statement_timeout: 1 });
    await slow.connect();
    const timeout = await slow.query('select pg_sleep(1)').then(() => undefined, (failure: Error) => failure);
    await slow.end();
    expect(timeout).toMatchObject({ code: '57014' });
    expect(isDatabaseUnavailable(asGraphQLError(timeout!))).toBe(true);
  });
});
