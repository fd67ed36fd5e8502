// An instant's ISO 8601 text, as Date.prototype.toISOString writes it (`2024-01-05T09:00:00.000Z`), computed
// in JavaScript. toISOString is a C++ builtin of V8: about 340 ns a call against 86 for this (2026-11-27), and
// a page of 100 deployments answers 200 timestamps (docs/performance.md#timestamps-as-text). Years outside
// 0000-9999, which toISOString writes with a sign and six digits, are left to it.

const MIN_FOUR_DIGIT_YEAR = -62167219200000; // 0000-01-01T00:00:00.000Z
const MAX_FOUR_DIGIT_YEAR = 253402300799999; // 9999-12-31T23:59:59.999Z
const DAY_MS = 86400000;

const ZERO = 48;
const [DASH, COLON, DOT, T, Z] = ['-', ':', '.', 'T', 'Z'].map((c) => c.charCodeAt(0)) as [number, number, number, number, number];
/** The character code of the digit of `n` worth `unit` (1, 10, 100, 1000). */
const digit = (n: number, unit: number) => ZERO + (Math.floor(n / unit) % 10);

/** `date.toISOString()`, for a valid Date. */
export function isoDateTime(date: Date): string {
  const time = date.getTime();
  if (!(time >= MIN_FOUR_DIGIT_YEAR && time <= MAX_FOUR_DIGIT_YEAR)) return date.toISOString();
  const days = Math.floor(time / DAY_MS);
  let rest = time - days * DAY_MS;
  // The civil date of a day count (Howard Hinnant's civil_from_days): eras of 400 years counted from
  // 0000-03-01, so that the leap day ends a year.
  const shifted = days + 719468;
  const era = Math.floor(shifted / 146097);
  const dayOfEra = shifted - era * 146097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3600000);
  rest -= hours * 3600000;
  const minutes = Math.floor(rest / 60000);
  rest -= minutes * 60000;
  const seconds = Math.floor(rest / 1000);
  const milliseconds = rest - seconds * 1000;
  // One string made of its characters, not joined from parts: V8 keeps a joined string as a tree of its parts
  // until something reads it whole, and JSON.stringify's fast path (src/v8-flags.ts) gives up on a whole answer,
  // to start again on the general serializer, at the first such string it meets: one timestamp joined from
  // parts took a page's stringify from 509 to 1,028 µs (docs/performance.md#jsonstringifys-fast-path).
  return String.fromCharCode(
    digit(year, 1000), digit(year, 100), digit(year, 10), digit(year, 1), DASH, digit(month, 10), digit(month, 1), DASH,
    digit(day, 10), digit(day, 1), T, digit(hours, 10), digit(hours, 1), COLON, digit(minutes, 10), digit(minutes, 1), COLON,
    digit(seconds, 10), digit(seconds, 1), DOT, digit(milliseconds, 100), digit(milliseconds, 10), digit(milliseconds, 1), Z,
  );
}
