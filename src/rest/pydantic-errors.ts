// Validation errors exactly as FastAPI (pydantic v2) writes them in a 422 body: type, loc, msg, input and,
// for the types that have one, ctx. The messages are pydantic-core's, word for word.
export type Location = ['query' | 'path', string, ...number[]];

export interface ValidationErrorItem {
  type: string;
  loc: Location;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** Python's repr of the allowed values, as pydantic lists them: `'a', 'b' or 'c'`. */
export function expectedList(values: readonly string[]): string {
  const quoted = values.map((value) => `'${value}'`);
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

export const pydanticError = {
  intParsing: (loc: Location, input: string): ValidationErrorItem =>
    ({ type: 'int_parsing', loc, msg: 'Input should be a valid integer, unable to parse string as an integer', input }),
  intParsingSize: (loc: Location, input: string): ValidationErrorItem =>
    ({ type: 'int_parsing_size', loc, msg: 'Unable to parse input string as an integer, exceeded maximum size', input }),
  boolParsing: (loc: Location, input: string): ValidationErrorItem =>
    ({ type: 'bool_parsing', loc, msg: 'Input should be a valid boolean, unable to interpret input', input }),
  greaterThanEqual: (loc: Location, input: string, ge: number): ValidationErrorItem =>
    ({ type: 'greater_than_equal', loc, msg: `Input should be greater than or equal to ${ge}`, input, ctx: { ge } }),
  lessThanEqual: (loc: Location, input: string, le: number): ValidationErrorItem =>
    ({ type: 'less_than_equal', loc, msg: `Input should be less than or equal to ${le}`, input, ctx: { le } }),
  literalError: (loc: Location, input: string, values: readonly string[]): ValidationErrorItem =>
    ({ type: 'literal_error', loc, msg: `Input should be ${expectedList(values)}`, input, ctx: { expected: expectedList(values) } }),
  enumError: (loc: Location, input: string, values: readonly string[]): ValidationErrorItem =>
    ({ type: 'enum', loc, msg: `Input should be ${expectedList(values)}`, input, ctx: { expected: expectedList(values) } }),
  uuidParsing: (loc: Location, input: string, error: string): ValidationErrorItem =>
    ({ type: 'uuid_parsing', loc, msg: `Input should be a valid UUID, ${error}`, input, ctx: { error } }),
  tooLong: (loc: Location, input: string, maxLength: number, actualLength: number): ValidationErrorItem => ({
    type: 'too_long', loc, msg: `List should have at most ${maxLength} items after validation, not ${actualLength}`, input,
    ctx: { field_type: 'List', max_length: maxLength, actual_length: actualLength },
  }),
  valueError: (loc: Location, input: string, error: string): ValidationErrorItem =>
    ({ type: 'value_error', loc, msg: `Value error, ${error}`, input, ctx: { error } }),
};
