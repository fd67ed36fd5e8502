// One JSON value of an import document collected byte by byte, across the chunks the document arrives in:
// where it ends (strings, escapes and nesting considered), and its text, for JSON.parse to read whole.
export const Byte = {
  Tab: 0x09, Newline: 0x0a, Return: 0x0d, Space: 0x20, Quote: 0x22, Comma: 0x2c, Colon: 0x3a,
  OpenArray: 0x5b, Backslash: 0x5c, CloseArray: 0x5d, OpenObject: 0x7b, CloseObject: 0x7d,
} as const;

export const isSpace = (byte: number) => byte === Byte.Space || byte === Byte.Newline || byte === Byte.Return || byte === Byte.Tab;

/** The JSON type of a value by its first byte, as zod names it in "expected array, received object". */
export function jsonTypeOf(byte: number): string | undefined {
  if (byte === Byte.OpenObject) return 'object';
  if (byte === Byte.OpenArray) return 'array';
  if (byte === Byte.Quote) return 'string';
  if (byte === 0x74 || byte === 0x66) return 'boolean'; // t, f
  if (byte === 0x6e) return 'null'; // n
  if (byte === 0x2d || (byte >= 0x30 && byte <= 0x39)) return 'number'; // -, 0-9
  return undefined;
}

/** A JSON value being collected, possibly across chunks. */
export class PendingValue {
  parts: Buffer[] = [];
  depth = 0;
  inString = false;
  /** Backslashes right before the current position inside a string (an odd count escapes the next quote). */
  backslashes = 0;
  /** A bare number, true, false or null: it ends at whitespace, a comma or a closing bracket. */
  bare = false;
  readonly startLine: number;
  readonly startColumn: number;
  constructor(startLine: number, startColumn: number) {
    this.startLine = startLine;
    this.startColumn = startColumn;
  }
  text(): string {
    return this.parts.length === 1 ? this.parts[0]!.toString('utf8') : Buffer.concat(this.parts).toString('utf8');
  }

  /** Whether the value's last byte has been collected. */
  get complete(): boolean {
    return this.depth === 0 && !this.inString && !this.bare;
  }

  /** Collects the value's bytes up to its end or the chunk's; returns where it stopped. */
  scan(chunk: Buffer, from: number): number {
    const end = chunk.length;
    let i = from;
    if (this.parts.length === 0 && this.depth === 0 && !this.inString && !this.bare) {
      const first = chunk[i]!;
      if (first === Byte.Quote) {
        this.inString = true;
        i++;
      } else if (first === Byte.OpenObject || first === Byte.OpenArray) {
        this.depth = 1;
        i++;
      } else {
        this.bare = true;
      }
    }
    while (i < end) {
      if (this.inString) {
        const close = this.findStringEnd(chunk, i);
        if (close < 0) {
          i = end;
          break;
        }
        i = close + 1;
        if (this.depth === 0) break; // a string element
        continue;
      }
      const byte = chunk[i]!;
      if (this.bare) {
        if (isSpace(byte) || byte === Byte.Comma || byte === Byte.CloseArray || byte === Byte.CloseObject) {
          this.bare = false;
          break;
        }
      } else if (byte === Byte.Quote) {
        this.inString = true;
      } else if (byte === Byte.OpenObject || byte === Byte.OpenArray) {
        this.depth++;
      } else if (byte === Byte.CloseObject || byte === Byte.CloseArray) {
        if (--this.depth === 0) {
          i++;
          break;
        }
      }
      i++;
    }
    this.parts.push(chunk.subarray(from, i));
    return i;
  }

  /** The offset of the quote that closes the string this value is in, or -1 when it goes on past this chunk. */
  findStringEnd(chunk: Buffer, from: number): number {
    let i = from;
    for (;;) {
      const quote = chunk.indexOf(Byte.Quote, i);
      if (quote < 0) {
        this.backslashes = trailingBackslashes(chunk, chunk.length, from, this.backslashes);
        return -1;
      }
      const escapes = trailingBackslashes(chunk, quote, from, this.backslashes);
      if (escapes % 2 === 0) {
        this.inString = false;
        this.backslashes = 0;
        return quote;
      }
      this.backslashes = 0;
      i = quote + 1;
      from = i;
    }
  }
}

/** Backslashes right before `at` (stopping at `from`, where `carried` more came before). */
function trailingBackslashes(chunk: Buffer, at: number, from: number, carried: number): number {
  let count = 0;
  let i = at - 1;
  while (i >= from && chunk[i] === Byte.Backslash) {
    count++;
    i--;
  }
  return i < from ? count + carried : count;
}
