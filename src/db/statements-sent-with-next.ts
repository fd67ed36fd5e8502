// Writes whose answers nobody reads, sent with the transaction's next statement: a write's inserts, updates and
// deletes go to PostgreSQL in the message that carries its next read, its idempotency record or its COMMIT, so a
// write costs few round trips (on loopback each one is most of a statement's CPU: docs/performance.md#writes).
//
// Only data-changing statements wait, and only inside a transaction: a read (a SELECT, or a statement that
// returns rows) always goes at once, carrying what waits before it, so every read sees the transaction's
// writes. A failure of one that waited fails the statement it went with, and with it the transaction.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SENT_WITH_NEXT } from './callback-query-client.ts';

const sendingWithNext = new AsyncLocalStorage<true>();

/** An insert, update or delete that returns nothing: its reply says only how many rows changed. */
const WRITE_WITHOUT_RESULT = /^\s*(insert|update|delete)\b(?![\s\S]*\breturning\b)/i;

/**
 * Runs `write` so that its inserts, updates and deletes wait for the transaction's next statement (their row
 * counts are not known to it: 0). `em` must be in a transaction, which then ends by a statement that carries them.
 */
export function sendWithNext<T>(em: EntityManager, write: () => Promise<T>): Promise<T> {
  if (!em.isInTransaction()) return Promise.reject(new Error('Statements can wait for a next one only inside a transaction'));
  return sendingWithNext.run(true, write);
}

/** The ORM's onQuery step: a statement run by sendWithNext's `write` that may wait is marked to wait. */
export const markIfSentWithNext = (sql: string): string => (sendingWithNext.getStore() && WRITE_WITHOUT_RESULT.test(sql) ? SENT_WITH_NEXT + sql : sql);
