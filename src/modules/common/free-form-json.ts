// The limits of a free-form JSON field (a Kubernetes volume source, a security context, …; `freeForm` in
// request-model.ts), checked with the rest of a body (docs/decisions.md#text-and-json-the-database-can-hold).
// A body within the size limit may nest thousands of levels deep (JSON.parse reads it without recursion), and
// what comes after validation copies such a value recursively (the ORM's snapshot of an entity overflowed the
// stack at about 4,500 levels): so the depth is checked here, by a walk that keeps its own stack.
import { pydanticError, type BodyPath, type ValidationErrorItem } from './pydantic-errors.ts';
import { unstorableText } from './storable-text.ts';

export const FREE_FORM_LIMITS = {
  /** Objects and lists inside one another, the field's own object the first: Kubernetes objects are shallow. */
  depth: 32,
  /** Bytes of the field's JSON text (UTF-8, as JSON.stringify writes it). */
  bytes: 64 * 1024,
} as const;

/** A value met in the walk (or a key: `ofKey`), its place kept as a parent and a key: spelled out only for a problem. */
interface Visit {
  value: unknown;
  depth: number;
  parent: Visit | undefined;
  key: string | number | undefined;
  ofKey?: boolean;
}

function placeOf(visit: Visit, loc: BodyPath): BodyPath {
  const keys: Array<string | number> = visit.ofKey ? ['[key]'] : [];
  for (let at: Visit | undefined = visit; at?.parent; at = at.parent) keys.push(at.key!);
  return [...loc, ...keys.reverse()];
}

/**
 * What is wrong with the free-form object at `loc`: nested deeper than the limit (one problem at the field),
 * or each key and string PostgreSQL cannot hold (at its place; a key's as `[…, key, '[key]']`, as pydantic
 * places a key's error), and larger than the limit (at the field). A value too deep or too large is not echoed
 * as the problem's input: the answer would have to carry it back.
 */
export function freeFormProblems(object: Record<string, unknown>, loc: BodyPath): Array<ValidationErrorItem<BodyPath>> {
  const problems: Array<ValidationErrorItem<BodyPath>> = [];
  const pending: Visit[] = [{ value: object, depth: 1, parent: undefined, key: undefined }];
  while (pending.length > 0) {
    const visit = pending.pop()!;
    const { value, depth } = visit;
    if (typeof value === 'string') {
      const problem = unstorableText(value);
      if (problem) problems.push(pydanticError.valueError(placeOf(visit, loc), value, problem));
    } else if (typeof value === 'object' && value !== null) {
      if (depth > FREE_FORM_LIMITS.depth) return [pydanticError.valueError(loc, null, `must not be nested more than ${FREE_FORM_LIMITS.depth} levels deep`)];
      const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
      // Last to first, each value before its key: they come off the stack in the document's order, key first.
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, item] = entries[index]!;
        pending.push({ value: item, depth: depth + 1, parent: visit, key });
        if (typeof key === 'string') pending.push({ value: key, depth, parent: visit, key, ofKey: true });
      }
    }
  }
  if (Buffer.byteLength(JSON.stringify(object)) > FREE_FORM_LIMITS.bytes) {
    problems.push(pydanticError.valueError(loc, null, `must not take more than ${FREE_FORM_LIMITS.bytes} bytes as JSON`));
  }
  return problems;
}
