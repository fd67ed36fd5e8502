// What a pool's connections send to PostgreSQL, message by message: a simple-protocol query (which may carry
// several statements, src/db/statements-sent-with-next.ts) or an extended-protocol one (its parse; sync follows).
// Each message is one round trip; BEGIN and COMMIT are messages too.
import type pg from 'pg';

/** Pushes each message's text to `sent()` (read at each message: a test may swap the array). */
export function noteSentMessages(sent: () => string[]): (pool: pg.Pool) => void {
  return (pool) => pool.on('connect', (client) => {
    const connection = (client as unknown as { connection: Record<'query' | 'parse', (...args: unknown[]) => unknown> }).connection;
    const query = connection.query.bind(connection);
    const parse = connection.parse.bind(connection);
    connection.query = (text: unknown) => (sent().push(String(text)), query(text));
    connection.parse = (config: unknown) => (sent().push(String((config as { text: string }).text)), parse(config));
  });
}
