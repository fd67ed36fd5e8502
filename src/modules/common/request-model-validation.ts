// Validates a parsed JSON body against a RequestModel as FastAPI does: `validate_python(body,
// from_attributes=True)` on what Python's json.loads made of it, i.e. pydantic v2's lax *Python* mode (not its
// JSON mode). Every error is reported at once, in pydantic's order: fields in declaration order, depth first;
// list items and dict entries in input order. Unknown keys are dropped at every level.
//
// The lax rules followed (pydantic's conversion table, checked against pydantic 2.13 / pydantic-core 2.46):
// - str: only strings (a number or a boolean is `string_type`).
// - int: integers; booleans (true is 1); integral floats (2.0 is 2, 2.5 `int_from_float`, beyond ±2^63
//   `int_parsing_size`); strings as `int()` reads them (" 1_000 ", "2.0"; "2.5" is `int_parsing`).
// - float: numbers, booleans, strings as Rust reads them (" 1e3 ", ".5", "inf", "nan", "1_0.5"); bounds
//   checked upper first, so NaN is `less_than_equal`.
// - bool: booleans, the numbers 0 and 1 (2 is `bool_parsing`, 0.5 or 1e20 `bool_type`), and the words of
//   parseLaxBool ("yes", "off", …).
// - UUID: strings in any form the uuid crate reads, given back canonical (lower case, hyphenated).
// - Literal / Enum: exactly one of the values; anything else, any type, is `literal_error` / `enum`.
// - list / dict / model: a JSON array / object, else `list_type` / `dict_type` / `model_attributes_type`.
//
// Beyond pydantic, every string (dict keys and the free-form objects' keys and strings included) must be text
// PostgreSQL can hold, and a free-form object is limited in depth and size (storable-text.ts,
// free-form-json.ts): `value_error` items, so that such a body is refused here and never fails in the database.
//
// JavaScript cannot tell the JSON literal 2 from 2.0: both are ints here, which only shows for integers past
// 2^53 (kept as the nearest double) and past 2^63 (refused as pydantic refuses such a float, though it would
// take such an integer). Object keys that look like array indexes come first in a JavaScript object, so the
// errors of a dict with such keys may come in another order than pydantic's.
import { freeFormProblems } from './free-form-json.ts';
import { parseLaxBool, parseLaxFloat, parseLaxInt, parseUuid } from './lax-parsing.ts';
import { pydanticError, type BodyPath, type ValidationErrorItem } from './pydantic-errors.ts';
import type { FieldType, ModelValue, RequestModel } from './request-model.ts';
import { unstorableText } from './storable-text.ts';

export type ModelValidation<Model extends RequestModel> =
  | { ok: true; value: ModelValue<Model> }
  | { ok: false; errors: Array<ValidationErrorItem<BodyPath>> };

/** `json` (a JSON.parse result) read as `model`; error locations are relative to it. */
export function validateModel<Model extends RequestModel>(model: Model, json: unknown): ModelValidation<Model> {
  const errors: Array<ValidationErrorItem<BodyPath>> = [];
  const value = readModel(model, json, [], errors);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as ModelValue<Model> };
}

type Errors = Array<ValidationErrorItem<BodyPath>>;
/** What a reader gives back when the input failed (its errors are already pushed). */
const INVALID = Symbol('invalid');
type Read = unknown;

const isObject = (input: unknown): input is Record<string, unknown> =>
  typeof input === 'object' && input !== null && !Array.isArray(input);

function readModel(model: RequestModel, input: unknown, loc: BodyPath, errors: Errors): Read {
  if (!isObject(input)) return fail(errors, pydanticError.modelAttributesType(loc, input));
  const value: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(model.fields)) {
    if (!Object.hasOwn(input, name)) {
      if (field.required) errors.push(pydanticError.missing([...loc, name], input));
      continue;
    }
    const raw = input[name];
    const read = raw === null && field.nullable ? null : readType(field.type, raw, [...loc, name], errors);
    if (read !== INVALID) value[name] = read;
  }
  return value;
}

function fail(errors: Errors, error: ValidationErrorItem<BodyPath>): typeof INVALID {
  errors.push(error);
  return INVALID;
}

function readType(type: FieldType, input: unknown, loc: BodyPath, errors: Errors): Read {
  switch (type.kind) {
    case 'string':
      return typeof input === 'string' ? readText(input, loc, errors) : fail(errors, pydanticError.stringType(loc, input));
    case 'int': {
      const read = readInt(input, loc, errors);
      return read === INVALID ? read : checkBounds(type, read as number, input, loc, errors);
    }
    case 'float': {
      const read = readFloat(input, loc, errors);
      return read === INVALID ? read : checkBounds(type, read as number, input, loc, errors);
    }
    case 'bool':
      return readBool(input, loc, errors);
    case 'uuid': {
      if (typeof input !== 'string') return fail(errors, pydanticError.uuidType(loc, input));
      const parsed = parseUuid(input);
      return 'uuid' in parsed ? parsed.uuid : fail(errors, pydanticError.uuidParsing(loc, input, parsed.error));
    }
    case 'literal':
      return typeof input === 'string' && type.values.includes(input) ? input : fail(errors, pydanticError.literalError(loc, input, type.values));
    case 'enum':
      return typeof input === 'string' && type.values.includes(input) ? input : fail(errors, pydanticError.enumError(loc, input, type.values));
    case 'list': {
      if (!Array.isArray(input)) return fail(errors, pydanticError.listType(loc, input));
      const before = errors.length;
      const items = input.map((item, index) => readType(type.items, item, [...loc, index], errors));
      return errors.length > before ? INVALID : items;
    }
    case 'dict': {
      if (!isObject(input)) return fail(errors, pydanticError.dictType(loc, input));
      // A free-form object is taken as it is (pydantic keeps every key and value of a dict[str, Any]), if the
      // database can hold it.
      if (type.values === 'any') {
        const problems = freeFormProblems(input, loc);
        errors.push(...problems);
        return problems.length > 0 ? INVALID : input;
      }
      const before = errors.length;
      const valueType = type.values;
      const entries = Object.entries(input).map(([key, item]) => {
        readText(key, [...loc, key, '[key]'], errors);
        return [key, readType(valueType, item, [...loc, key], errors)];
      });
      // fromEntries defines own properties, so a `__proto__` key stays a key.
      return errors.length > before ? INVALID : Object.fromEntries(entries);
    }
    case 'model':
      return readModel(type.model, input, loc, errors);
  }
}

/** A string, if PostgreSQL can hold it. */
function readText(input: string, loc: BodyPath, errors: Errors): Read {
  const problem = unstorableText(input);
  return problem ? fail(errors, pydanticError.valueError(loc, input, problem)) : input;
}

// pydantic-core's float_as_int: the bounds are i64's, as doubles (exclusive).
const I64_LIMIT = 2 ** 63;

function readInt(input: unknown, loc: BodyPath, errors: Errors): Read {
  if (typeof input === 'boolean') return input ? 1 : 0;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return fail(errors, pydanticError.finiteNumber(loc, input));
    if (!Number.isInteger(input)) return fail(errors, pydanticError.intFromFloat(loc, input));
    if (Math.abs(input) >= I64_LIMIT) return fail(errors, pydanticError.intParsingSize(loc, input));
    return input;
  }
  if (typeof input === 'string') {
    const parsed = parseLaxInt(input);
    if (parsed === undefined) return fail(errors, pydanticError.intParsing(loc, input));
    if (parsed === 'too-long') return fail(errors, pydanticError.intParsingSize(loc, input));
    return Number(parsed);
  }
  return fail(errors, pydanticError.intType(loc, input));
}

function readFloat(input: unknown, loc: BodyPath, errors: Errors): Read {
  if (typeof input === 'number') return input;
  if (typeof input === 'boolean') return input ? 1 : 0;
  if (typeof input === 'string') return parseLaxFloat(input) ?? fail(errors, pydanticError.floatParsing(loc, input));
  return fail(errors, pydanticError.floatType(loc, input));
}

function readBool(input: unknown, loc: BodyPath, errors: Errors): Read {
  if (typeof input === 'boolean') return input;
  if (typeof input === 'number') {
    if (input === 0 || input === 1) return input === 1;
    // Other integers are bool_parsing; a number that is no i64 (fractional, too big, not finite) is bool_type.
    const integer = Number.isInteger(input) && Math.abs(input) < I64_LIMIT;
    return fail(errors, integer ? pydanticError.boolParsing(loc, input) : pydanticError.boolType(loc, input));
  }
  if (typeof input === 'string') return parseLaxBool(input) ?? fail(errors, pydanticError.boolParsing(loc, input));
  return fail(errors, pydanticError.boolType(loc, input));
}

/** pydantic-core checks `le` before `ge` and reports only the first that fails; the input is echoed as sent. */
function checkBounds(type: { ge?: number; le?: number }, value: number, input: unknown, loc: BodyPath, errors: Errors): Read {
  if (type.le !== undefined && !(value <= type.le)) return fail(errors, pydanticError.lessThanEqual(loc, input, type.le));
  if (type.ge !== undefined && !(value >= type.ge)) return fail(errors, pydanticError.greaterThanEqual(loc, input, type.ge));
  return value;
}
