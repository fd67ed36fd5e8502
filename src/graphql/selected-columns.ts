// Which columns of a row a GraphQL selection needs, so that a listing reads only those (a dashboard asking for
// `uuid name status` must not read a 3.6 KB jsonb resource spec per row). The answer reaches the domain as plain
// data (modules/common/selection.ts): its columns, and which relations are shown with what columns.
//
// Fields declare what they read (`columnsOf`): the columns of the row they resolve from, and for a field whose
// value is built from the same row (a value object stored in the row's columns), the columns of its own
// subselection. graphql-js collects the subfields, so fragments, aliases and @skip/@include count as in
// execution. A selected field that declares nothing makes the answer "every column": never too few.
// A field that reads one key of a jsonb column declares `column.key` (`keyOf`), so that a dashboard asking for
// two numbers of the resource spec reads those two keys, not the whole object; `column.` alone asks whether
// the column is null (the object exists) without any of its keys.
//
// What a selection asks for is worked out once per document: unless an @skip or @include of the operation takes
// its condition from a variable, the same document asks for the same thing in every request (its parsed nodes
// are kept with it, by Yoga's parse cache and the operation runner's documents), so the answer is kept with its field node.
import {
  BREAK, getNamedType, isObjectType, Kind, visit,
  type FieldNode, type GraphQLObjectType, type GraphQLResolveInfo, type OperationDefinitionNode,
} from 'graphql';
import { collectSubfields } from 'graphql/execution/collectFields.js';
import type { SelectedColumns, Selection } from '../modules/common/selection.ts';

/** What a field reads of its parent's row (`extensions` of a Pothos field). */
export interface ColumnsExtension {
  columns?: readonly string[];
  /** Its value is built from the parent's row: the columns its subselection needs are the parent's too. */
  fromSameRow?: boolean;
}

/** The `extensions` of a field that reads `columns` of its parent's row. */
export const columnsOf = (...columns: string[]) => ({ columns } satisfies ColumnsExtension);
/** The `extensions` of a field that reads one top-level `key` of the jsonb `column` of its parent's row. */
export const keyOf = (column: string, key: string) => columnsOf(`${column}.${key}`);
/** The `extensions` of a field whose object value is made from its parent's row (plus `columns`, if any). */
export const fromSameRow = (...columns: string[]) => ({ columns, fromSameRow: true } satisfies ColumnsExtension);

/**
 * The field nodes reached from the resolver's own field by following `path` (field names, not aliases; every
 * alias of a name together), and their type. No nodes: the path is not selected.
 */
function selectionAt(info: GraphQLResolveInfo, path: readonly string[]): { type: GraphQLObjectType; nodes: FieldNode[] } | undefined {
  let type = getNamedType(info.returnType);
  let nodes: FieldNode[] = [...info.fieldNodes];
  for (const name of path) {
    if (!isObjectType(type)) return undefined;
    const field = type.getFields()[name];
    if (!field) return undefined;
    const subfields = nodes.length === 0 ? [] : [...collectSubfields(info.schema, info.fragments, info.variableValues, type, nodes).values()];
    nodes = subfields.filter((fieldNodes) => fieldNodes[0]!.name.value === name).flat();
    type = getNamedType(field.type);
  }
  return isObjectType(type) ? { type, nodes } : undefined;
}

/** Whether an @skip or @include of the operation or of its fragments takes its condition from a variable. */
function hasVariableCondition(info: GraphQLResolveInfo): boolean {
  let found = false;
  for (const node of [info.operation, ...Object.values(info.fragments)]) {
    visit(node, {
      Directive(directive) {
        if ((directive.name.value === 'skip' || directive.name.value === 'include')
          && directive.arguments?.some((argument) => argument.value.kind === Kind.VARIABLE)) {
          found = true;
          return BREAK;
        }
        return undefined;
      },
    });
    if (found) return true;
  }
  return false;
}

const conditionalOperations = new WeakMap<OperationDefinitionNode, boolean>();
const answersByField = new WeakMap<FieldNode, WeakMap<GraphQLObjectType, Map<string, unknown>>>();

/**
 * `work()`'s answer about the selection of the field being resolved, kept with its field node (and the type it is
 * a field of) under `key` when the document's selections do not depend on variables (see above). A field selected
 * more than once in one place (its nodes merged) is worked out every time: one of its nodes may be a fragment's,
 * merged with others elsewhere. What is kept is frozen: requests share it.
 */
function oncePerDocument<T>(info: GraphQLResolveInfo, key: string, work: () => T): T {
  if (info.fieldNodes.length !== 1) return work();
  let conditional = conditionalOperations.get(info.operation);
  if (conditional === undefined) conditionalOperations.set(info.operation, (conditional = hasVariableCondition(info)));
  if (conditional) return work();
  let byParentType = answersByField.get(info.fieldNodes[0]!);
  if (!byParentType) answersByField.set(info.fieldNodes[0]!, (byParentType = new WeakMap()));
  let answers = byParentType.get(info.parentType);
  if (!answers) byParentType.set(info.parentType, (answers = new Map()));
  if (answers.has(key)) return answers.get(key) as T;
  const answer = work();
  answers.set(key, Object.freeze(answer));
  return answer;
}

/**
 * The columns the selection at `path` needs, or undefined for "every column" (a selected field that declares
 * nothing). The repository adds what it always reads itself.
 */
export function selectedColumns(info: GraphQLResolveInfo, path: readonly string[]): SelectedColumns {
  return oncePerDocument(info, `columns:${path.join('.')}`, () => columnsSelectedAt(info, path));
}

/**
 * What the selection at `path` shows of each row: its columns (as selectedColumns), and of `relations` (fields
 * of the row's type) those it selects, each with its own columns.
 */
export function selectionOf(info: GraphQLResolveInfo, path: readonly string[], relations: readonly string[]): Selection {
  return oncePerDocument(info, `selection:${path.join('.')}|${relations.join()}`, () => {
    const shown: Record<string, Selection> = {};
    for (const relation of relations) {
      const at = [...path, relation];
      if ((selectionAt(info, at)?.nodes.length ?? 0) > 0) shown[relation] = Object.freeze({ columns: frozenColumnsAt(info, at), relations: {} });
    }
    return { columns: frozenColumnsAt(info, path), relations: Object.freeze(shown) };
  });
}

/** Frozen all the way down, as what is kept must be (oncePerDocument freezes only its answer's top). */
function frozenColumnsAt(info: GraphQLResolveInfo, path: readonly string[]): SelectedColumns {
  const columns = columnsSelectedAt(info, path);
  return columns && Object.freeze(columns);
}

function columnsSelectedAt(info: GraphQLResolveInfo, path: readonly string[]): string[] | undefined {
  const selection = selectionAt(info, path);
  if (!selection) return undefined;
  const columns = new Set<string>();
  const visit = (type: GraphQLObjectType, nodes: readonly FieldNode[]): boolean => {
    if (nodes.length === 0) return true;
    for (const fieldNodes of collectSubfields(info.schema, info.fragments, info.variableValues, type, nodes).values()) {
      const name = fieldNodes[0]!.name.value;
      if (name === '__typename') continue;
      const field = type.getFields()[name];
      const declared = field?.extensions as ColumnsExtension | undefined;
      if (!declared?.columns) return false;
      declared.columns.forEach((column) => columns.add(column));
      if (declared.fromSameRow) {
        const valueType = getNamedType(field!.type);
        if (!isObjectType(valueType) || !visit(valueType, fieldNodes)) return false;
      }
    }
    return true;
  };
  return visit(selection.type, selection.nodes) ? [...columns] : undefined;
}
