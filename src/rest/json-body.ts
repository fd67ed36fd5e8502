// A request body read as FastAPI (0.11x, routing.get_request_handler) reads one for a route with a body
// model, up to the model's validation: the bytes decoded as json.loads decodes bytes, parsed, and the
// answers it gives on the way (422 json_invalid, 422 missing, 400).
import { pydanticError, type ValidationErrorItem } from '../modules/common/pydantic-errors.ts';
import { pythonJsonError } from './python-json-errors.ts';

export type ParsedJsonBody =
  /** The value to validate against the body model. */
  | { ok: true; value: unknown }
  /** A 422: the body is not JSON (json_invalid), or there is none (missing); locations include 'body'. */
  | { ok: false; status: 422; errors: ValidationErrorItem[] }
  /** FastAPI's answer to bytes that are no text in the detected encoding: 400 with this detail. */
  | { ok: false; status: 400; detail: 'There was an error parsing the body' };

/** FastAPI's 422 item for a text json.loads refuses (the text must be refused, or "Expecting value" at 0 is given). */
export function jsonInvalid(text: string): ValidationErrorItem {
  const error = pythonJsonError(text) ?? { msg: 'Expecting value', pos: 0 };
  return pydanticError.jsonInvalid(error.pos, error.msg);
}

/**
 * The body as FastAPI hands it to the model. No body, an empty one and the JSON `null` are all "no body":
 * `missing` at ['body'], input null. A Content-Type other than JSON (`application/json`, `application/*+json`)
 * is not parsed: the text goes to the model as it is (and fails there as model_attributes_type); no
 * Content-Type at all is read as JSON, as FastAPI does.
 */
export function parseJsonBody(bytes: Buffer | undefined, contentType?: string): ParsedJsonBody {
  const missing: ParsedJsonBody = { ok: false, status: 422, errors: [pydanticError.missing(['body'], null)] };
  if (bytes === undefined || bytes.length === 0) return missing;
  if (contentType && !isJsonContentType(contentType)) return { ok: true, value: bytes.toString('utf8') };
  const text = decodeAsJsonLoads(bytes);
  if (text === undefined) return { ok: false, status: 400, detail: 'There was an error parsing the body' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, status: 422, errors: [jsonInvalid(text)] };
  }
  return value === null ? missing : { ok: true, value };
}

/**
 * FastAPI's test, through Python's email.message: the type before any `;`, trimmed and lower-cased, must be
 * `application/json` or `application/<anything>+json` (a value without exactly one `/` is text/plain).
 */
export function isJsonContentType(value: string): boolean {
  const type = value.split(';', 1)[0]!.trim().toLowerCase();
  const parts = type.split('/');
  if (parts.length !== 2) return false;
  const [main, sub] = parts as [string, string];
  return main === 'application' && (sub === 'json' || sub.endsWith('+json'));
}

/**
 * The text json.loads reads from bytes: the encoding guessed from the first bytes (json.detect_encoding:
 * UTF-8 with or without its BOM, UTF-16 and UTF-32 either way round), or undefined where Python's decoding
 * fails. (Python decodes with 'surrogatepass', so it would also take encoded lone surrogates; these fail here.)
 */
function decodeAsJsonLoads(bytes: Buffer): string | undefined {
  const encoding = detectEncoding(bytes);
  try {
    if (encoding === 'utf-32le' || encoding === 'utf-32be') return decodeUtf32(bytes, encoding === 'utf-32le');
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be';

function detectEncoding(b: Buffer): Encoding {
  if (b.length >= 4 && b[0] === 0 && b[1] === 0 && b[2] === 0xfe && b[3] === 0xff) return 'utf-32be';
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xfe && b[2] === 0 && b[3] === 0) return 'utf-32le';
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  if (b.length >= 4) {
    if (!b[0]) return b[1] ? 'utf-16be' : 'utf-32be';
    if (!b[1]) return b[2] || b[3] ? 'utf-16le' : 'utf-32le';
  } else if (b.length === 2) {
    if (!b[0]) return 'utf-16be';
    if (!b[1]) return 'utf-16le';
  }
  return 'utf-8';
}

/** UTF-32, which TextDecoder does not know; a leading BOM is dropped, as Python's codec drops it. */
function decodeUtf32(bytes: Buffer, littleEndian: boolean): string {
  if (bytes.length % 4 !== 0) throw new RangeError('truncated UTF-32');
  let text = '';
  for (let offset = 0; offset < bytes.length; offset += 4) {
    const code = littleEndian ? bytes.readUInt32LE(offset) : bytes.readUInt32BE(offset);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) throw new RangeError('not a code point');
    if (!(offset === 0 && code === 0xfeff)) text += String.fromCodePoint(code);
  }
  return text;
}
