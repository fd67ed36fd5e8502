// Random selections of a GraphQL type for the projection tests: a selection tree, printed with aliases,
// fragments and @skip/@include, and the part of a full read that the same selection must return.
import fc from 'fast-check';
import { getNamedType, isLeafType, isObjectType, type GraphQLField, type GraphQLObjectType } from 'graphql';

/** A selection: field name to its subselection (null for a leaf). */
export type Tree = Map<string, Tree | null>;

/**
 * Random selections of a type's fields, nested objects included (no type twice on a path); as the full read
 * (selectEverything), only fields that need no argument.
 */
export function treeOf(type: GraphQLObjectType, path: string[] = []): fc.Arbitrary<Tree> {
  const fields = selectableFields(type, path);
  return fc.subarray(fields, { minLength: 1 }).chain((chosen) => fc.tuple(...chosen.map((field) => {
    const named = getNamedType(field.type);
    return isLeafType(named) ? fc.constant([field.name, null] as const) : treeOf(named as GraphQLObjectType, [...path, type.name]).map((sub) => [field.name, sub] as const);
  })).map((entries) => new Map(entries)));
}

/**
 * The fields a selection of `type` at `path` may hold: leaves, and objects not yet on the path while the path is
 * short, if they have fields of their own to select there (a connection without leaves two levels down has none).
 */
function selectableFields(type: GraphQLObjectType, path: string[]): GraphQLField<unknown, unknown>[] {
  return Object.values(type.getFields()).filter((field) => {
    if (field.args.some((arg) => arg.type.toString().endsWith('!'))) return false;
    const named = getNamedType(field.type);
    if (isLeafType(named)) return true;
    return isObjectType(named) && !path.includes(named.name) && path.length < 2 && selectableFields(named, [...path, type.name]).length > 0;
  });
}

export interface Printing { aliases: boolean; fragment: 'none' | 'inline' | 'named'; skipped?: string }

/** How a selection is written: aliases or not, as it is, in an inline fragment or in a named one. */
export const printings: fc.Arbitrary<Omit<Printing, 'skipped'>> = fc.record({
  aliases: fc.boolean(),
  fragment: fc.constantFrom('none', 'inline', 'named') as fc.Arbitrary<Printing['fragment']>,
});

/** Aliased (`aliases`): the first few top-level fields (the documents' alias limit is 15). */
const aliased = (printing: Printing, depth: number, index: number) => printing.aliases && depth === 0 && index < 5;

/** `skipped`: that top-level field twice, once with @skip(if: true), once with @include(if: false). */
function print(tree: Tree, printing: Printing, depth = 0): string {
  return [...tree].map(([name, sub], index) => {
    const alias = aliased(printing, depth, index) ? `a_${name}: ` : '';
    const selection = sub ? ` { ${print(sub, printing, depth + 1)} }` : '';
    if (depth > 0 || printing.skipped !== name) return `${alias}${name}${selection}`;
    return `${alias}${name} @skip(if: $yes)${selection} ${alias}${name} @include(if: $no)${selection}`;
  }).join(' ');
}

/** The fields of `tree` taken from a full result (aliases renamed), as the partial query must return them. */
export function project(value: unknown, tree: Tree, printing: Printing, depth = 0): unknown {
  if (value === null) return null;
  if (Array.isArray(value)) return value.map((item) => project(item, tree, printing, depth));
  const object = value as Record<string, unknown>;
  return Object.fromEntries([...tree]
    .map(([name, sub], index) => [aliased(printing, depth, index) ? `a_${name}` : name, sub ? project(object[name], sub, printing, depth + 1) : object[name], name] as const)
    .filter(([, , name]) => !(depth === 0 && printing.skipped === name))
    .map(([key, value]) => [key, value]));
}

/**
 * A query of the selection `tree` of `type`, placed by `listing` (which gets the printed selection) and with the
 * given variable definitions (plus those of `skipped`).
 */
export function partialDocument(tree: Tree, printing: Printing, type: string, listing: (selection: string) => string, variables: string[] = []): string {
  const body = print(tree, printing);
  const selection = printing.fragment === 'inline' ? `... on ${type} { ${body} }` : printing.fragment === 'named' ? '...Chosen' : body;
  const fragment = printing.fragment === 'named' ? `fragment Chosen on ${type} { ${body} }` : '';
  const definitions = [...variables, ...(printing.skipped ? ['$yes: Boolean!', '$no: Boolean!'] : [])];
  return `query Partial${definitions.length > 0 ? `(${definitions.join(', ')})` : ''} { ${listing(selection)} } ${fragment}`;
}

/** Where a selection of Deployment goes: the first 100 of the offset page or of the connection. */
export const deploymentListing = (list: 'page' | 'connection') => (selection: string) => (list === 'page'
  ? `deployments(limit: 100) { resources { ${selection} } }`
  : `deploymentsConnection(first: 100) { edges { node { ${selection} } } }`);

/** The variables of `skipped` (none without). */
export const skipVariables = (printing: Printing) => (printing.skipped ? { yes: true, no: false } : {});
