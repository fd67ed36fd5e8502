// Reads an import document as a stream of records, so a document of any size is imported in bounded memory.
// The document is one JSON object of arrays (document.schema.ts); this reader walks the object and its arrays
// byte by byte and hands each array element to JSON.parse whole. A general streaming JSON parser (stream-json)
// took 112 s to read the 100,000-deployment benchmark document (521 MB); this takes about 2.
//
// Syntax errors name the line and column; structure errors (an unknown top-level key, a section that is not
// an array) use the messages of the document's zod schema.
import { ImportError } from './import-error.ts';
import { isSection, type SectionName } from './document.schema.ts';
import { Byte, isSpace, jsonTypeOf, PendingValue } from './json-value.ts';

export interface DocumentRecord {
  section: SectionName;
  index: number;
  value: unknown;
  /**
   * The element's text has a \u0000 or \ud800-\udfff escape: JSON.parse gives no NUL character or unpaired
   * surrogate otherwise, so validate-record.ts looks for them only then.
   */
  escapes: boolean;
}

const SUSPICIOUS_ESCAPE = /\\u(0000|[dD][89a-fA-F])/;

/** Where the reader is in the document's outer object. */
type Place =
  | 'document' // before the opening brace
  | 'key' | 'key or end' // before a key (after '{' the object may also end)
  | 'colon'
  | 'section' // before a section's value
  | 'element' | 'element or end' // before an array element (after '[' the array may also end)
  | 'after element' | 'after section' | 'end';

export class DocumentReader {
  #place: Place = 'document';
  #key: PendingValue | undefined;
  #value: PendingValue | undefined;
  #section: SectionName | undefined;
  #index = 0;
  readonly #seenSections = new Set<string>();
  // Line and column of the position reached, counted lazily (only up to where an error or a value starts).
  #line = 1;
  #lineStart = 0; // offset in the current chunk where the current line starts (may be negative: an earlier chunk)
  #counted = 0; // offset in the current chunk up to which newlines are counted

  /** Reads one chunk; the records it completes are passed to `emit` in document order. */
  push(chunk: Buffer, emit: (record: DocumentRecord) => void): void {
    let i = 0;
    const end = chunk.length;
    this.#counted = 0;
    while (i < end) {
      if (this.#value) {
        i = this.#value.scan(chunk, i);
        if (this.#value.complete) this.#finishValue(emit);
        continue;
      }
      if (this.#key) {
        const close = this.#key.findStringEnd(chunk, i);
        if (close < 0) {
          this.#key.parts.push(chunk.subarray(i));
          i = end;
        } else {
          this.#key.parts.push(chunk.subarray(i, close + 1));
          this.#finishKey();
          i = close + 1;
        }
        continue;
      }
      const byte = chunk[i]!;
      if (isSpace(byte)) {
        i++;
        continue;
      }
      i = this.#structural(chunk, i, byte);
    }
    this.#advanceLines(chunk, end);
    this.#lineStart -= end;
  }

  /** Call at the end of the input: fails if the document is incomplete. */
  finish(): void {
    if (this.#place !== 'end') throw this.#syntaxError('unexpected end of the document');
  }

  #structural(chunk: Buffer, i: number, byte: number): number {
    switch (this.#place) {
      case 'document': {
        if (byte === Byte.OpenObject) {
          this.#place = 'key or end';
          return i + 1;
        }
        return this.#notA('object', '', chunk, i);
      }
      case 'key':
      case 'key or end':
        if (byte === Byte.CloseObject && this.#place === 'key or end') {
          this.#place = 'end';
          return i + 1;
        }
        if (byte !== Byte.Quote) this.#unexpected(chunk, i, 'a key in double quotes');
        this.#key = this.#startValue(chunk, i);
        this.#key.inString = true;
        this.#key.parts.push(chunk.subarray(i, i + 1));
        return i + 1;
      case 'colon':
        if (byte !== Byte.Colon) this.#unexpected(chunk, i, "':' after the key");
        this.#place = 'section';
        return i + 1;
      case 'section': {
        if (byte === Byte.OpenArray) {
          this.#place = 'element or end';
          this.#index = 0;
          return i + 1;
        }
        return this.#notA('array', this.#section!, chunk, i);
      }
      case 'element':
      case 'element or end':
        if (byte === Byte.CloseArray && this.#place === 'element or end') {
          this.#place = 'after section';
          return i + 1;
        }
        if (!jsonTypeOf(byte)) this.#unexpected(chunk, i, 'an array element');
        this.#value = this.#startValue(chunk, i);
        return i;
      case 'after element':
        if (byte === Byte.Comma) this.#place = 'element';
        else if (byte === Byte.CloseArray) this.#place = 'after section';
        else this.#unexpected(chunk, i, "',' or ']' after an array element");
        return i + 1;
      case 'after section':
        if (byte === Byte.Comma) this.#place = 'key';
        else if (byte === Byte.CloseObject) this.#place = 'end';
        else this.#unexpected(chunk, i, "',' or '}' after a value");
        return i + 1;
      case 'end':
        return this.#unexpected(chunk, i, 'nothing after the document');
    }
  }

  #startValue(chunk: Buffer, i: number): PendingValue {
    this.#advanceLines(chunk, i);
    return new PendingValue(this.#line, i - this.#lineStart + 1);
  }

  #finishKey(): void {
    const key = this.#key!;
    const name = parseJson(key, key.text(), this) as string;
    this.#key = undefined;
    if (!isSection(name)) throw new ImportError('', `unknown key "${name}"`);
    // JSON.parse would keep the last of two equal keys and drop the first silently.
    if (this.#seenSections.has(name)) throw new ImportError(name, 'appears twice in the document');
    this.#seenSections.add(name);
    this.#section = name;
    this.#place = 'colon';
  }

  #finishValue(emit: (record: DocumentRecord) => void): void {
    const pending = this.#value!;
    const text = pending.text();
    const value = parseJson(pending, text, this);
    this.#value = undefined;
    this.#place = 'after element';
    emit({ section: this.#section!, index: this.#index++, value, escapes: text.includes('\\u') && SUSPICIOUS_ESCAPE.test(text) });
  }

  #advanceLines(chunk: Buffer, to: number): void {
    for (let i = chunk.indexOf(Byte.Newline, this.#counted); i >= 0 && i < to; i = chunk.indexOf(Byte.Newline, i + 1)) {
      this.#line++;
      this.#lineStart = i + 1;
    }
    this.#counted = Math.max(this.#counted, to);
  }

  /** A value of another JSON type where an object or array must be: zod's words; not JSON at all: a syntax error. */
  #notA(expected: 'object' | 'array', path: string, chunk: Buffer, i: number): never {
    const type = jsonTypeOf(chunk[i]!);
    if (type) throw new ImportError(path, `Invalid input: expected ${expected}, received ${type}`);
    return this.#unexpected(chunk, i, expected === 'object' ? "'{'" : "'['");
  }

  #unexpected(chunk: Buffer, i: number, expected: string): never {
    this.#advanceLines(chunk, i);
    const found = chunk.toString('utf8', i, Math.min(chunk.length, i + 12)).split(/[\r\n]/)[0];
    throw this.#syntaxError(`expected ${expected}, found "${found}"`, this.#line, i - this.#lineStart + 1);
  }

  #syntaxError(problem: string, line = this.#line, column?: number): ImportError {
    return new ImportError('', `not valid JSON (${problem}${column === undefined ? '' : ` at line ${line}, column ${column}`})`);
  }

  /** A JSON.parse failure inside a value, at the document's line and column where V8 says, else where the value starts. */
  valueSyntaxError(value: PendingValue, text: string, error: Error): ImportError {
    const where = this.#value === value ? `${this.#section}[${this.#index}]` : 'a key';
    const position = /at position (\d+)/.exec(error.message);
    const problem = `${error.message.replace(/ (in JSON )?at position \d+.*$/, '')} in ${where}`;
    if (!position) return this.#syntaxError(`${problem}, which starts`, value.startLine, value.startColumn);
    const before = text.slice(0, Number(position[1]));
    const newline = before.lastIndexOf('\n');
    const lines = before.split('\n').length - 1;
    const column = newline < 0 ? value.startColumn + Buffer.byteLength(before) : Buffer.byteLength(before.slice(newline + 1)) + 1;
    return this.#syntaxError(problem, value.startLine + lines, column);
  }
}

function parseJson(value: PendingValue, text: string, reader: DocumentReader): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw reader.valueSyntaxError(value, text, error as Error);
  }
}

/** Every record of a document read from `input` (a file's stream, or any chunks of its bytes). */
export async function* readDocument(input: AsyncIterable<Buffer | string> | Iterable<Buffer | string>): AsyncGenerator<DocumentRecord> {
  const reader = new DocumentReader();
  const ready: DocumentRecord[] = [];
  const emit = (record: DocumentRecord) => ready.push(record);
  for await (const chunk of input) {
    reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk, emit);
    yield* ready;
    ready.length = 0;
  }
  reader.finish();
}
