// A write's statements that wait for the transaction's next one (src/db/statements-sent-with-next.ts, carried by
// the pool's client, src/db/callback-query-client.ts), against a real PostgreSQL: they reach the database in that
// statement's message and are seen by it; a failure among them fails it and the transaction; a rollback drops
// them; a read never waits; outside a transaction nothing may wait.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendWithNext } from '../src/db/statements-sent-with-next.ts';
import { noteSentMessages } from './support/sent-messages.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

let db: TestDatabase;
let messages: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase({ migrated: false, onPoolCreated: noteSentMessages(() => messages) });
  await db.orm.em.fork().execute('create table noted (n int primary key, note text not null)');
});
afterAll(() => db?.drop());

const stored = async () => (await db.query<{ n: number }>('select n from noted order by n')).map((row) => row.n);

describe('statements sent with the next', () => {
  it('go with the next statement, which sees them, and commit with the transaction', async () => {
    messages = [];
    const seen = await db.orm.em.fork().transactional(async (tx) => {
      await sendWithNext(tx, async () => {
        const answered = await tx.execute("insert into noted (n, note) values (1, 'one')", [], 'run');
        expect(answered).toMatchObject({ affectedRows: 0 });
        await tx.execute("insert into noted (n, note) values (2, 'two')");
      });
      return tx.execute<{ count: string }[]>('select count(*)::int as count from noted');
    });
    expect(seen).toEqual([{ count: 2 }]);
    // BEGIN, whose reply says nothing either, goes with the transaction's first statement.
    expect(messages).toEqual([
      "begin;\ninsert into noted (n, note) values (1, 'one');\ninsert into noted (n, note) values (2, 'two');\nselect count(*)::int as count from noted",
      'commit',
    ]);
    expect(await stored()).toEqual([1, 2]);
  });

  it('a read run while writes wait goes at once, carrying them', async () => {
    messages = [];
    await db.orm.em.fork().transactional(async (tx) => sendWithNext(tx, async () => {
      await tx.execute("insert into noted (n, note) values (3, 'three')");
      const [row] = await tx.execute<{ note: string }[]>('select note from noted where n = 3');
      expect(row).toEqual({ note: 'three' });
      await tx.execute("update noted set note = 'THREE' where n = 3");
    }));
    expect(messages).toEqual([
      "begin;\ninsert into noted (n, note) values (3, 'three');\nselect note from noted where n = 3",
      "update noted set note = 'THREE' where n = 3;\ncommit",
    ]);
    expect(await db.query('select note from noted where n = 3')).toEqual([{ note: 'THREE' }]);
  });

  it('a failure among them fails the statement they went with, and the whole transaction rolls back', async () => {
    const write = db.orm.em.fork().transactional(async (tx) => sendWithNext(tx, async () => {
      await tx.execute("insert into noted (n, note) values (4, 'four')");
      await tx.execute("insert into noted (n, note) values (1, 'one again')");
    }));
    await expect(write).rejects.toMatchObject({ code: '23505' });
    expect(await stored()).toEqual([1, 2, 3]);
    // The connection is clean for whoever takes it next.
    expect(await db.orm.em.fork().transactional((tx) => tx.execute('select 1 as one'))).toEqual([{ one: 1 }]);
  });

  it('a rollback drops them unsent; with its BEGIN unsent too, nothing is sent', async () => {
    messages = [];
    await expect(db.orm.em.fork().transactional(async (tx) => {
      await sendWithNext(tx, () => tx.execute("insert into noted (n, note) values (5, 'five')"));
      throw new Error('changed my mind');
    })).rejects.toThrow('changed my mind');
    expect(messages).toEqual([]);
    await expect(db.orm.em.fork().transactional(async (tx) => {
      await tx.execute('select 1');
      await sendWithNext(tx, () => tx.execute("insert into noted (n, note) values (5, 'five')"));
      throw new Error('changed my mind again');
    })).rejects.toThrow('changed my mind again');
    expect(messages).toEqual(['begin;\nselect 1', 'rollback']);
    expect(await stored()).toEqual([1, 2, 3]);
  });

  it('a statement that returns rows never waits', async () => {
    const [row] = await db.orm.em.fork().transactional((tx) => sendWithNext(tx, () => tx.execute<{ n: number }[]>("insert into noted (n, note) values (6, 'six') returning n")));
    expect(row).toEqual({ n: 6 });
  });

  it('nothing waits outside a transaction', async () => {
    await expect(sendWithNext(db.orm.em.fork(), async () => undefined)).rejects.toThrow('only inside a transaction');
  });
});
