// The text of a free-form JSON field (a Kubernetes volume source, a security context, …; `freeForm` in
// request-model.ts), checked with the rest of a body (docs/decisions.md#text-and-json-the-database-can-hold).
// A body within the size limit may nest thousands of levels deep (JSON.parse reads it without recursion): the
// walk keeps its own stack.
import { pydanticError, type BodyPath, type ValidationErrorItem } from './pydantic-errors.ts';
import { unstorableText } from './storable-text.ts';

/** A value met in the walk (or a key: `ofKey`), its place kept as a parent and a key: spelled out only for a problem. */
interface Visit {
  value: unknown;
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
 * Each key and string of the free-form object at `loc` that PostgreSQL cannot hold, at its place (a key's as
 * `[…, key, '[key]']`, as pydantic places a key's error).
 */
export function freeFormProblems(object: Record<string, unknown>, loc: BodyPath): Array<ValidationErrorItem<BodyPath>> {
  const problems: Array<ValidationErrorItem<BodyPath>> = [];
  const pending: Visit[] = [{ value: object, parent: undefined, key: undefined }];
  while (pending.length > 0) {
    const visit = pending.pop()!;
    const { value } = visit;
    if (typeof value === 'string') {
      const problem = unstorableText(value);
      if (problem) problems.push(pydanticError.valueError(placeOf(visit, loc), value, problem));
    } else if (typeof value === 'object' && value !== null) {
      const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
      // Last to first, each value before its key: they come off the stack in the document's order, key first.
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, item] = entries[index]!;
        pending.push({ value: item, parent: visit, key });
        if (typeof key === 'string') pending.push({ value: key, parent: visit, key, ofKey: true });
      }
    }
  }
  return problems;
}
