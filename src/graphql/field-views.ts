// Views of stored objects under their GraphQL field names. A field whose name differs from the key it reads
// (`cpuLimit` reading the jsonb `cpu_limit`) needs a resolver, and graphql-jit executes every field with a
// resolver as a deferred call of its own (a resolve info, a response path, a promise check): about 60 such
// calls per deployment record, 6,000 for a page of 100. Read through a view whose getters are named as the
// fields, the same fields have no resolver, and graphql-jit reads them inline in the code it compiles
// (docs/performance.md#fields-read-through-views).
//
// The getters are compiled (`new Function`) so that each reads one literal key: closures over a key variable
// would share their property-load feedback and make it megamorphic. Names are checked before they are
// written into code.
import { camelCase, type CamelCase } from '../modules/common/legacy-json.ts';

/** The stored object's keys under their camelCase names, read-only. */
export type CamelCaseView<Stored> = { readonly [K in keyof Stored & string as CamelCase<K>]: Stored[K] };

const STORED_KEY = /^[a-z][a-z0-9_]*$/;
const CLASS_NAME = /^[A-Z][A-Za-z0-9]*$/;

/**
 * A class of views of `Stored`: `new View(stored).cpuLimit` reads `stored.cpu_limit`, for each of `keys`. The
 * stored object is kept as it is (not copied); a key it does not have reads undefined, answered as null.
 */
export function camelCaseViewClass<Stored extends object>(
  name: string, keys: readonly (keyof Stored & string)[],
): new (stored: Stored) => CamelCaseView<Stored> {
  if (!CLASS_NAME.test(name)) throw new Error(`view class name "${name}" is not a class name`);
  const getters = keys.map((key) => {
    if (!STORED_KEY.test(key) || key === 'stored') throw new Error(`${name}: cannot make a getter for key "${key}"`);
    return `get ${camelCase(key)}() { return this.stored.${key}; }`;
  });
  // Literal, checked names only (see above).
  return new Function(`return class ${name} { constructor(stored) { this.stored = stored; } ${getters.join(' ')} }`)();
}
