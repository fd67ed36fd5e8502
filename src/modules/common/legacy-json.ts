// Helpers for the legacy JSON shape: snake_case keys for our own fields, and explicit nulls for every
// absent field (legacy clients index keys directly and break on a missing one).
import type { z } from 'zod';

export const camelCase = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
export const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** `cpu_limit` → `cpuLimit`, as a type. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** Shallow key conversion; nested objects (Kubernetes shapes, free-form maps) keep their own keys. */
export function mapKeys(value: object, convert: (key: string) => string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [convert(key), v]));
}

/** `mapKeys(value, camelCase)`, typed: `{ cpu_limit: V }` → `{ cpuLimit: V }`. */
export const camelCaseKeys = <Value extends object>(value: Value) =>
  mapKeys(value, camelCase) as { [Key in keyof Value & string as CamelCase<Key>]: Value[Key] };

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; shape?: Record<string, z.ZodType>; element?: z.ZodType };
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

function unwrap(schema: z.ZodType): z.ZodType {
  let def = defOf(schema);
  while (def.innerType || def.type === 'pipe') {
    schema = (def.innerType ?? def.in) as z.ZodType;
    def = defOf(schema);
  }
  return schema;
}

type Filler = (value: unknown) => unknown;
/** One filler per schema, built on first use: walking the zod definitions for every value cost the import as much as validating. */
const fillers = new WeakMap<z.ZodType, Filler>();

function fillerFor(schema: z.ZodType): Filler {
  let filler = fillers.get(schema);
  if (filler) return filler;
  const def = defOf(unwrap(schema));
  if (def.type === 'object' && def.shape) {
    const shape = Object.entries(def.shape);
    let children: [string, Filler][] | undefined; // resolved on first call: schemas may refer to each other
    filler = (value) => {
      if (value === undefined || value === null) return null;
      if (typeof value !== 'object') return value;
      children ??= shape.map(([key, child]) => [key, fillerFor(child)]);
      const source = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [key, child] of children) out[key] = child(source[key]);
      return out;
    };
  } else if (def.type === 'array' && def.element) {
    const element = def.element;
    filler = (value) => {
      if (value === undefined || value === null) return null;
      return Array.isArray(value) ? value.map(fillerFor(element)) : value;
    };
  } else {
    filler = (value) => (value === undefined ? null : value);
  }
  fillers.set(schema, filler);
  return filler;
}

/**
 * Returns `value` with every key `schema` declares present (absent ones as null), in the schema's key order,
 * recursing into declared objects and arrays. Free-form maps are returned as they are.
 */
export function withDeclaredKeys(schema: z.ZodType, value: unknown): unknown {
  return fillerFor(schema)(value);
}

/**
 * A GraphQL selection set that fetches a legacy record: each declared key becomes `snake_key: camelField`,
 * nested objects recurse, free-form maps stay leaves. `renames` maps top-level keys whose GraphQL field is
 * not simply the camelCase key (e.g. `id: uuid`).
 */
export function graphqlSelectionFor(schema: z.ZodType, renames: Record<string, string> = {}): string {
  const def = defOf(unwrap(schema));
  const objectDef = def.type === 'array' && def.element ? defOf(unwrap(def.element)) : def;
  if (objectDef.type !== 'object' || !objectDef.shape) return '';
  const fields = Object.entries(objectDef.shape).map(([key, child]) => {
    const field = renames[key] ?? camelCase(key);
    const nested = graphqlSelectionFor(child);
    return `${field === key ? key : `${key}: ${field}`}${nested ? ` ${nested}` : ''}`;
  });
  return `{ ${fields.join(' ')} }`;
}
