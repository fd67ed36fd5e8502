// Timestamps read from PostgreSQL as text (the lean read path) become the instants PostgreSQL stored, whatever
// the session's time zone and however many fraction digits it prints, and are answered as toISOString writes
// them: every created_at and updated_at a page shows goes through both.
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timestampFromText } from '../src/modules/common/lean-rows.ts';
import { schema } from '../src/graphql/schema.ts';
import { createTestDatabase, type TestDatabase } from './support/test-database.ts';

// From the year 2 (PostgreSQL prints a local time before the year 1 as BC), through 9999 (its local time may be
// in the year 10000).
const MIN = new Date(0).setUTCFullYear(2, 0, 1);
const MAX = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

describe('timestamps read as text', () => {
  let db: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await db.drop();
  });

  // UTC is what sessions here use; the others print offsets with minutes, or negative ones.
  it.each(['UTC', 'Asia/Kolkata', 'America/St_Johns', 'Pacific/Kiritimati'])('are the stored instant under time zone %s', async (zone) => {
    await client.query(`set time zone '${zone}'`);
    const instants = fc.sample(fc.record({
      milliseconds: fc.integer({ min: MIN, max: MAX }),
      // Microseconds beyond the millisecond (Date keeps milliseconds: they are cut, never rounded up),
      // and whole seconds or milliseconds, which PostgreSQL prints without trailing zeros.
      micros: fc.integer({ min: 0, max: 999 }),
      round: fc.constantFrom('none', 'second', 'millisecond'),
    }), { numRuns: 400, seed: 42 }).map(({ milliseconds, micros, round }) => {
      const ms = round === 'second' ? milliseconds - (milliseconds % 1000) : milliseconds;
      return { ms, iso: `${new Date(ms).toISOString().slice(0, -1)}${round === 'none' ? String(micros).padStart(3, '0') : ''}Z` };
    });
    const { rows } = await client.query<{ text: string }>(
      'select t::timestamptz::text as text from unnest($1::text[]) with ordinality as u(t, n) order by n', [instants.map((i) => i.iso)],
    );
    const read = rows.map((row) => timestampFromText(row.text).toISOString());
    expect(read).toEqual(instants.map((i) => new Date(i.ms).toISOString()));
  });
});

describe('timestamps answered', () => {
  const dateTime = schema.getType('DateTime')!;
  const serialize = (value: unknown) => (dateTime as unknown as { serialize(value: unknown): unknown }).serialize(value);

  it('are the text toISOString writes, for every instant a Date can hold', () => {
    // Every instant of the four-digit years (written by the service itself) and beyond them (left to
    // toISOString), with the days around leap days, month ends and the epoch.
    const edges = [
      Date.UTC(2024, 1, 29, 23, 59, 59, 999), Date.UTC(2100, 1, 28), Date.UTC(2000, 1, 29), Date.UTC(1900, 2, 1), 0, -1, 1,
      new Date(0).setUTCFullYear(0, 0, 1), new Date(0).setUTCFullYear(0, 0, 1) - 1, MAX, MAX + 1, 8.64e15, -8.64e15,
    ];
    const instants = [...edges, ...fc.sample(fc.oneof(
      fc.integer({ min: new Date(0).setUTCFullYear(0, 0, 1), max: MAX }),
      fc.integer({ min: -8.64e15, max: 8.64e15 }),
    ), { numRuns: 20000, seed: 7 })];
    expect(instants.map((ms) => serialize(new Date(ms)))).toEqual(instants.map((ms) => new Date(ms).toISOString()));
  });

  it('refuse an invalid Date, and read text and numbers as graphql-scalars does', () => {
    expect(() => serialize(new Date(Number.NaN))).toThrow('DateTime cannot represent an invalid Date instance');
    expect(serialize('2024-01-05T09:00:00Z')).toBe('2024-01-05T09:00:00.000Z');
    expect(() => serialize('yesterday')).toThrow();
  });
});
