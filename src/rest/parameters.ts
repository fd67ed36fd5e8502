// Declared REST parameters: one list per route drives validation (FastAPI's rules, every error at once)
// and the OpenAPI document, so the two cannot drift apart.
import { parseLaxBool, parseLaxInt, parseUuid } from './lax-parsing.ts';
import { pydanticError, type Location, type ValidationErrorItem } from './pydantic-errors.ts';

interface Common {
  name: string;
  in: 'query' | 'path';
  description: string;
}

export type ParameterSpec = Common & (
  | { kind: 'int'; default: number; ge?: number; le?: number }
  | { kind: 'bool' }
  | { kind: 'literal'; values: readonly string[] }
  | { kind: 'text' }
  /** Comma-separated values of an enum; an empty string means "no filter". */
  | { kind: 'enum-list'; values: readonly string[] }
  /** Comma-separated UUIDs; an empty string means "no filter". */
  | { kind: 'uuid-list'; maxItems: number }
  | { kind: 'uuid' }
  /** A required list of UUIDs, the key repeated (`?id=…&id=…`), as FastAPI reads a `list[UUID]` query parameter. */
  | { kind: 'uuid-array'; maxItems: number }
);

/** Integers stay exact (`bigint`): pydantic reads arbitrarily large ones, and an offset is echoed as sent. */
export type ParameterValue = bigint | boolean | string | string[] | undefined;

export type ParsedParameters =
  | { ok: true; values: Record<string, ParameterValue> }
  | { ok: false; errors: ValidationErrorItem[] };

/**
 * Reads every declared parameter. Query strings repeat keys as FastAPI reads them (the last one wins);
 * undeclared parameters are ignored.
 */
export function parseParameters(specs: readonly ParameterSpec[], query: URLSearchParams, path: Record<string, string>): ParsedParameters {
  const values: Record<string, ParameterValue> = {};
  const errors: ValidationErrorItem[] = [];
  for (const spec of specs) {
    const loc: Location = [spec.in, spec.name];
    if (spec.kind === 'uuid-array') {
      const result = parseUuidArray(query.getAll(spec.name), loc, spec.maxItems);
      if ('errors' in result) errors.push(...result.errors);
      else values[spec.name] = result.value;
      continue;
    }
    const raw = spec.in === 'path' ? path[spec.name] : query.getAll(spec.name).at(-1);
    const result = raw === undefined ? { value: spec.kind === 'int' ? BigInt(spec.default) : undefined } : parseValue(spec, raw, loc);
    if ('errors' in result) errors.push(...result.errors);
    else values[spec.name] = result.value;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, values };
}

function parseValue(spec: ParameterSpec, raw: string, loc: Location): { value: ParameterValue } | { errors: ValidationErrorItem[] } {
  switch (spec.kind) {
    case 'int': {
      const parsed = parseLaxInt(raw);
      if (parsed === undefined) return { errors: [pydanticError.intParsing(loc, raw)] };
      if (parsed === 'too-long') return { errors: [pydanticError.intParsingSize(loc, raw)] };
      if (spec.ge !== undefined && parsed < BigInt(spec.ge)) return { errors: [pydanticError.greaterThanEqual(loc, raw, spec.ge)] };
      if (spec.le !== undefined && parsed > BigInt(spec.le)) return { errors: [pydanticError.lessThanEqual(loc, raw, spec.le)] };
      return { value: parsed };
    }
    case 'bool': {
      const parsed = parseLaxBool(raw);
      return parsed === undefined ? { errors: [pydanticError.boolParsing(loc, raw)] } : { value: parsed };
    }
    case 'literal':
      return spec.values.includes(raw) ? { value: raw } : { errors: [pydanticError.literalError(loc, raw, spec.values)] };
    case 'text':
      // PostgreSQL text cannot hold NUL: such a filter could never match, so it is refused like GraphQL does.
      // (A path segment is only compared, never queried, so it may hold one.)
      if (spec.in === 'query' && raw.includes('\u0000')) return { errors: [pydanticError.valueError(loc, raw, 'must not contain NUL characters')] };
      return { value: raw === '' ? undefined : raw };
    case 'uuid': {
      const parsed = parseUuid(raw);
      return 'uuid' in parsed ? { value: parsed.uuid } : { errors: [pydanticError.uuidParsing(loc, raw, parsed.error)] };
    }
    case 'enum-list': {
      if (raw === '') return { value: undefined };
      const items = raw.split(',');
      const errors = items.flatMap((item, index) =>
        (spec.values.includes(item) ? [] : [pydanticError.enumError([...loc, index], item, spec.values)]));
      return errors.length > 0 ? { errors } : { value: items };
    }
    case 'uuid-array':
      return parseUuidArray([raw], loc, spec.maxItems);
    case 'uuid-list': {
      if (raw === '') return { value: undefined };
      const items = raw.split(',');
      if (items.length > spec.maxItems) return { errors: [pydanticError.tooLong(loc, raw, spec.maxItems, items.length)] };
      return parseUuids(items, loc);
    }
  }
}

/** A required `list[UUID]` query parameter, the key repeated: missing, too long, or each item a UUID. */
function parseUuidArray(items: string[], loc: Location, maxItems: number): { value: string[] } | { errors: ValidationErrorItem[] } {
  if (items.length === 0) return { errors: [pydanticError.missing(loc, null)] };
  if (items.length > maxItems) return { errors: [pydanticError.tooLong(loc, items, maxItems, items.length)] };
  return parseUuids(items, loc);
}

/** Each item a UUID, or the error of each that is not (at its index). */
function parseUuids(items: string[], loc: Location): { value: string[] } | { errors: ValidationErrorItem[] } {
  const uuids: string[] = [];
  const errors: ValidationErrorItem[] = [];
  items.forEach((item, index) => {
    const parsed = parseUuid(item);
    if ('uuid' in parsed) uuids.push(parsed.uuid);
    else errors.push(pydanticError.uuidParsing([...loc, index], item, parsed.error));
  });
  return errors.length > 0 ? { errors } : { value: uuids };
}
