// Validation errors exactly as FastAPI (pydantic v2) writes them in a 422 body: type, loc, msg, input and,
// for the types that have one, ctx. The messages are pydantic-core's, word for word. Here rather than in
// rest/ so that request-body validation (modules/) can build them too; rest/pydantic-errors.ts re-exports.

/** A place inside a request body: keys and list indexes, outermost first (`['secrets', 0, 'name']`). */
export type BodyPath = Array<string | number>;

/** Where an error is, as FastAPI writes it: a parameter (plus an index for list items) or a place in the body. */
export type Location = ['query' | 'path', string, ...number[]] | ['body', ...BodyPath];

export interface ValidationErrorItem<L extends BodyPath = Location> {
  type: string;
  loc: L;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** Python's repr of the allowed values, as pydantic lists them: `'a', 'b' or 'c'`. */
export function expectedList(values: readonly string[]): string {
  const quoted = values.map((value) => `'${value}'`);
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

function item<L extends BodyPath>(type: string, loc: L, msg: string, input: unknown, ctx?: Record<string, unknown>): ValidationErrorItem<L> {
  return ctx ? { type, loc, msg, input, ctx } : { type, loc, msg, input };
}

export const pydanticError = {
  missing: <const L extends BodyPath>(loc: L, input: unknown) => item('missing', loc, 'Field required', input),
  stringType: <const L extends BodyPath>(loc: L, input: unknown) => item('string_type', loc, 'Input should be a valid string', input),
  intType: <const L extends BodyPath>(loc: L, input: unknown) => item('int_type', loc, 'Input should be a valid integer', input),
  intParsing: <const L extends BodyPath>(loc: L, input: unknown) =>
    item('int_parsing', loc, 'Input should be a valid integer, unable to parse string as an integer', input),
  intParsingSize: <const L extends BodyPath>(loc: L, input: unknown) =>
    item('int_parsing_size', loc, 'Unable to parse input string as an integer, exceeded maximum size', input),
  intFromFloat: <const L extends BodyPath>(loc: L, input: unknown) =>
    item('int_from_float', loc, 'Input should be a valid integer, got a number with a fractional part', input),
  finiteNumber: <const L extends BodyPath>(loc: L, input: unknown) => item('finite_number', loc, 'Input should be a finite number', input),
  floatType: <const L extends BodyPath>(loc: L, input: unknown) => item('float_type', loc, 'Input should be a valid number', input),
  floatParsing: <const L extends BodyPath>(loc: L, input: unknown) =>
    item('float_parsing', loc, 'Input should be a valid number, unable to parse string as a number', input),
  boolType: <const L extends BodyPath>(loc: L, input: unknown) => item('bool_type', loc, 'Input should be a valid boolean', input),
  boolParsing: <const L extends BodyPath>(loc: L, input: unknown) =>
    item('bool_parsing', loc, 'Input should be a valid boolean, unable to interpret input', input),
  listType: <const L extends BodyPath>(loc: L, input: unknown) => item('list_type', loc, 'Input should be a valid list', input),
  dictType: <const L extends BodyPath>(loc: L, input: unknown) => item('dict_type', loc, 'Input should be a valid dictionary', input),
  /** A model given something else than an object (FastAPI validates with `from_attributes=True`). */
  modelAttributesType: <const L extends BodyPath>(loc: L, input: unknown) =>
    item('model_attributes_type', loc, 'Input should be a valid dictionary or object to extract fields from', input),
  // A bound renders as Rust prints it: 0.1 as `0.1`, 8.0 as `8` (the ctx keeps the number).
  greaterThanEqual: <const L extends BodyPath>(loc: L, input: unknown, ge: number) =>
    item('greater_than_equal', loc, `Input should be greater than or equal to ${ge}`, input, { ge }),
  lessThanEqual: <const L extends BodyPath>(loc: L, input: unknown, le: number) =>
    item('less_than_equal', loc, `Input should be less than or equal to ${le}`, input, { le }),
  literalError: <const L extends BodyPath>(loc: L, input: unknown, values: readonly string[]) =>
    item('literal_error', loc, `Input should be ${expectedList(values)}`, input, { expected: expectedList(values) }),
  enumError: <const L extends BodyPath>(loc: L, input: unknown, values: readonly string[]) =>
    item('enum', loc, `Input should be ${expectedList(values)}`, input, { expected: expectedList(values) }),
  uuidType: <const L extends BodyPath>(loc: L, input: unknown) => item('uuid_type', loc, 'UUID input should be a string, bytes or UUID object', input),
  uuidParsing: <const L extends BodyPath>(loc: L, input: unknown, error: string) =>
    item('uuid_parsing', loc, `Input should be a valid UUID, ${error}`, input, { error }),
  tooShort: <const L extends BodyPath>(loc: L, input: unknown, minLength: number, actualLength: number) =>
    item('too_short', loc, `List should have at least ${minLength} item${minLength === 1 ? '' : 's'} after validation, not ${actualLength}`, input,
      { field_type: 'List', min_length: minLength, actual_length: actualLength }),
  tooLong: <const L extends BodyPath>(loc: L, input: unknown, maxLength: number, actualLength: number) =>
    item('too_long', loc, `List should have at most ${maxLength} items after validation, not ${actualLength}`, input,
      { field_type: 'List', max_length: maxLength, actual_length: actualLength }),
  valueError: <const L extends BodyPath>(loc: L, input: unknown, error: string) =>
    item('value_error', loc, `Value error, ${error}`, input, { error }),
  /** FastAPI's own item for a body that is not JSON: `input` is always `{}`, the position is Python's. */
  jsonInvalid: (position: number, error: string): ValidationErrorItem =>
    item('json_invalid', ['body', position], 'JSON decode error', {}, { error }),
};

/** Errors of a body's validation, as FastAPI reports them: under `body`. */
export const inBody = (errors: ReadonlyArray<ValidationErrorItem<BodyPath>>): ValidationErrorItem[] =>
  errors.map((error) => ({ ...error, loc: ['body', ...error.loc] }));
