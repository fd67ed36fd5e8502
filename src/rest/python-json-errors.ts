// Why Python's json.loads (CPython 3.13's C scanner, Modules/_json.c) refuses a text: its message and its
// position, which FastAPI puts into a json_invalid item. Only the syntax is followed, no value is built:
// JSON.parse builds the values, and this runs only once it has refused the text.
//
// One deliberate difference: Python reads NaN, Infinity and -Infinity as numbers; here they are refused like
// any other word ("Expecting value" where they start). The original would store such a number, or fail with
// a 500 when writing it back in a JSON answer.

export interface PythonJsonError {
  /** Python's `JSONDecodeError.msg`, e.g. "Expecting ',' delimiter". */
  msg: string;
  /** Python's `JSONDecodeError.pos`: an index in code points (a character beyond U+FFFF counts once). */
  pos: number;
}

class Refusal {
  readonly msg: string;
  readonly index: number;
  constructor(msg: string, index: number) {
    this.msg = msg;
    this.index = index;
  }
}

const isWhitespace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
// The C scanner's number: -?(0|[1-9]\d*), then a fraction and an exponent only when digits follow them.
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const HEX_DIGIT = /^[0-9a-fA-F]$/;

/** Python's complaint about `text`, or undefined when Python would read it. */
export function pythonJsonError(text: string): PythonJsonError | undefined {
  try {
    const end = skipWhitespace(text, scanValue(text, skipWhitespace(text, 0)));
    if (end !== text.length) throw new Refusal('Extra data', end);
    return undefined;
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return { msg: error.msg, pos: codePoints(text, error.index) };
  }
}

function codePoints(text: string, index: number): number {
  let count = 0;
  for (const _ of text.slice(0, index)) count++;
  return count;
}

function skipWhitespace(s: string, index: number): number {
  while (isWhitespace(s[index])) index++;
  return index;
}

/** The index after the value starting at `index`. */
function scanValue(s: string, index: number): number {
  switch (s[index]) {
    case '"': return scanString(s, index + 1);
    case '{': return scanObject(s, index + 1);
    case '[': return scanArray(s, index + 1);
    case 'n': if (s.startsWith('null', index)) return index + 4; break;
    case 't': if (s.startsWith('true', index)) return index + 4; break;
    case 'f': if (s.startsWith('false', index)) return index + 5; break;
  }
  NUMBER.lastIndex = index;
  const number = NUMBER.exec(s);
  if (number) return index + number[0].length;
  // Python's StopIteration: reported as "Expecting value" wherever the value should have started.
  throw new Refusal('Expecting value', index);
}

function scanObject(s: string, index: number): number {
  index = skipWhitespace(s, index);
  if (s[index] === '}') return index + 1;
  for (;;) {
    if (s[index] !== '"') throw new Refusal('Expecting property name enclosed in double quotes', index);
    index = skipWhitespace(s, scanString(s, index + 1));
    if (s[index] !== ':') throw new Refusal('Expecting \':\' delimiter', index);
    index = skipWhitespace(s, scanValue(s, skipWhitespace(s, index + 1)));
    if (s[index] === '}') return index + 1;
    if (s[index] !== ',') throw new Refusal('Expecting \',\' delimiter', index);
    const comma = index;
    index = skipWhitespace(s, index + 1);
    if (s[index] === '}') throw new Refusal('Illegal trailing comma before end of object', comma);
  }
}

function scanArray(s: string, index: number): number {
  index = skipWhitespace(s, index);
  if (s[index] === ']') return index + 1;
  for (;;) {
    index = skipWhitespace(s, scanValue(s, index));
    if (s[index] === ']') return index + 1;
    if (s[index] !== ',') throw new Refusal('Expecting \',\' delimiter', index);
    const comma = index;
    index = skipWhitespace(s, index + 1);
    if (s[index] === ']') throw new Refusal('Illegal trailing comma before end of array', comma);
  }
}

/** The index after the closing quote of the string whose content starts at `index`. */
function scanString(s: string, index: number): number {
  const begin = index - 1;
  for (;;) {
    let next = index;
    while (next < s.length && s[next] !== '"' && s[next] !== '\\') {
      if (s.charCodeAt(next) <= 0x1f) throw new Refusal('Invalid control character at', next);
      next++;
    }
    if (next >= s.length) throw new Refusal('Unterminated string starting at', begin);
    if (s[next] === '"') return next + 1;
    next++; // the backslash
    if (next === s.length) throw new Refusal('Unterminated string starting at', begin);
    if (s[next] !== 'u') {
      if (!'"\\/bfnrt'.includes(s[next]!)) throw new Refusal('Invalid \\escape', next - 1);
      index = next + 1;
      continue;
    }
    index = scanUnicodeEscape(s, next + 1);
  }
}

/** After `\u`: four hex digits, and a second escape when they make a high surrogate followed by `\u`. */
function scanUnicodeEscape(s: string, next: number): number {
  let end = next + 4;
  if (end >= s.length) throw new Refusal('Invalid \\uXXXX escape', next - 1);
  const digits = s.slice(next, end);
  if (![...digits].every((digit) => HEX_DIGIT.test(digit))) throw new Refusal('Invalid \\uXXXX escape', end - 5);
  const code = Number.parseInt(digits, 16);
  if (code >= 0xd800 && code <= 0xdbff && end + 6 < s.length && s[end] === '\\' && s[end + 1] === 'u') {
    end += 6;
    const low = s.slice(end - 4, end);
    if (![...low].every((digit) => HEX_DIGIT.test(digit))) throw new Refusal('Invalid \\uXXXX escape', end - 5);
  }
  return end;
}
