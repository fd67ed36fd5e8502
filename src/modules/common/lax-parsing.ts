// How pydantic v2 (lax mode) reads a string as an integer, a number, a boolean or a UUID: a query-string value,
// or a string where a JSON body has a number. Checked against pydantic-core 2.x: the spellings it accepts,
// and the uuid crate's error messages.

// Rust's char::is_whitespace (Unicode White_Space), which pydantic strips around integers; not JS trim()'s set.
const WHITESPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const SURROUNDING_WHITESPACE = new RegExp(`^${WHITESPACE}+|${WHITESPACE}+$`, 'g');

// Python refuses int() conversions of more than 4300 digits; pydantic-core reports a leading run of that many
// digits as `int_parsing_size` and other over-long numbers as `int_parsing` (observed rules, see the tests).
const MAX_DIGITS = 4300;

/**
 * The integer a string denotes (`" +1_000.00 "` is 1000), `'too-long'` for pydantic's int_parsing_size, or
 * undefined; big values stay exact.
 */
export function parseLaxInt(raw: string): bigint | 'too-long' | undefined {
  let text = raw.replace(SURROUNDING_WHITESPACE, '');
  const leadingRun = /^-?[1-9]\d*/.exec(text)?.[0] ?? '';
  if (leadingRun.length > MAX_DIGITS) return 'too-long';
  const decimalZeros = /^(.+)\.0+$/.exec(text);
  if (decimalZeros) text = decimalZeros[1]!;
  if (!/^[+-]?\d+(_\d+)*$/.test(text)) return undefined;
  const digits = text.replace(/^[+-]/, '').replaceAll('_', '');
  if (digits.replace(/^0+/, '').length > MAX_DIGITS) return undefined;
  return BigInt(text.replaceAll('_', ''));
}

// Rust's f64 grammar (`str::parse`): digits with an optional point and exponent, or inf, infinity, nan in any case.
const RUST_FLOAT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;

function parseRustFloat(text: string): number | undefined {
  if (!RUST_FLOAT.test(text)) return undefined;
  const unsigned = text.replace(/^[+-]/, '').toLowerCase();
  if (unsigned === 'nan') return Number.NaN;
  const magnitude = unsigned.startsWith('inf') ? Number.POSITIVE_INFINITY : Number(unsigned);
  return text.startsWith('-') ? -magnitude : magnitude;
}

/**
 * The number a string denotes, as pydantic-core's `str_as_float` reads it, or undefined: Rust's grammar after
 * trimming whitespace (`" 1e3 "`, `".5"`, `"-inf"`, `"NaN"`); failing that, the untrimmed text with underscores
 * between characters removed (`"1_000.5"`, but not `" 1_0"`, `"_1"` or `"1__0"`).
 */
export function parseLaxFloat(raw: string): number | undefined {
  const trimmed = parseRustFloat(raw.replace(SURROUNDING_WHITESPACE, ''));
  if (trimmed !== undefined) return trimmed;
  if (!raw.includes('_') || raw.startsWith('_') || raw.endsWith('_') || raw.includes('__')) return undefined;
  return parseRustFloat(raw.replaceAll('_', ''));
}

const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

/** true/false, 1/0, yes/no, on/off, t/f, y/n in any case, nothing around them; otherwise undefined. */
export function parseLaxBool(raw: string): boolean | undefined {
  const word = raw.toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

const HYPHENATED = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const GROUP_STARTS = [0, 9, 14, 19, 24];
const GROUP_LENGTHS = [8, 4, 4, 4, 12];

/**
 * The canonical (lower-case, hyphenated) UUID, or the uuid crate's explanation of why not. Accepted forms:
 * hyphenated, 32 hex digits, `{hyphenated}` and `urn:uuid:hyphenated`.
 */
export function parseUuid(raw: string): { uuid: string } | { error: string } {
  const hyphenated = raw.startsWith('urn:uuid:') ? raw.slice(9) : /^\{.*\}$/s.test(raw) ? raw.slice(1, -1) : raw;
  if (HYPHENATED.test(hyphenated)) return { uuid: hyphenated.toLowerCase() };
  if (/^[0-9a-fA-F]{32}$/.test(raw)) {
    const hex = raw.toLowerCase();
    return { uuid: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` };
  }
  // At exactly the braced (38 bytes) and URN (45 bytes) lengths the crate explains the inner 36 bytes alone.
  const bytes = Buffer.byteLength(raw);
  const framed = (bytes === 38 && raw.startsWith('{') && raw.endsWith('}')) || (bytes === 45 && raw.startsWith('urn:uuid:'));
  return { error: explainInvalidUuid(framed ? hyphenated : raw) };
}

// A port of uuid's `InvalidUuid::into_err`; positions are 1-based byte offsets into the whole input.
function explainInvalidUuid(input: string): string {
  let body = input;
  let offset = 0;
  let simple = true;
  if (input.length >= 2 && input.startsWith('{') && input.endsWith('}')) [body, offset, simple] = [input.slice(1, -1), 1, false];
  else if (input.startsWith('urn:uuid:')) [body, offset, simple] = [input.slice(9), 9, false];

  const hyphens: number[] = [];
  let byteIndex = 0;
  for (const character of body) {
    if (character === '-') hyphens.push(byteIndex);
    else if (!/^[0-9a-fA-F]$/.test(character)) return `invalid character: found \`${character}\` at ${byteIndex + offset + 1}`;
    byteIndex += Buffer.byteLength(character);
  }
  const inputLength = Buffer.byteLength(input);
  if (hyphens.length === 0 && simple) return `invalid length: expected length 32 for simple format, found ${inputLength}`;
  if (hyphens.length !== 4) return `invalid group count: expected 5, found ${hyphens.length + 1}`;
  for (let group = 0; group < 4; group++) {
    if (hyphens[group] !== GROUP_STARTS[group + 1]! - 1) {
      return `invalid group length in group ${group}: expected ${GROUP_LENGTHS[group]}, found ${hyphens[group]! - GROUP_STARTS[group]!}`;
    }
  }
  return `invalid group length in group 4: expected 12, found ${inputLength - GROUP_STARTS[4]!}`;
}
