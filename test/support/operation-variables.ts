// Variables for any operation of the corpus (test/compiled-operations.test.ts), made from where each variable
// is used: `$id` passed to `deployment(id:)` gets deployment ids, to `repositories(integrationId:)` integration
// ids, and so on, from pools of real ids (of the caller's tenant and of others), unknown and malformed ones.
// Several sets per operation: the usual values, every nullable variable null, every nullable or defaulted
// variable left out (the argument's default applies), seeded random picks, and a value of the wrong type.
import {
  getNamedType, isEnumType, isInputObjectType, isListType, isNonNullType, Kind, TypeInfo, typeFromAST, visit, visitWithTypeInfo,
  type DocumentNode, type GraphQLInputType, type GraphQLSchema, type OperationDefinitionNode,
} from 'graphql';
import type { seeded } from '../../bench/dataset.ts';

type Random = ReturnType<typeof seeded>;
export type Variables = Record<string, unknown>;

/**
 * Values by where a variable is used: `Type.field.argument`, `InputType.field` or `@directive.argument`. For a
 * list there, the pool holds its items (a variable of the list type gets several). The first value is the usual one.
 */
export type ValuePools = Map<string, unknown[]>;

interface Use {
  place: string;
  /** The type at the place it is used (a list's item where the variable is an item of a list literal). */
  type: GraphQLInputType;
}

/** Where each variable of the operation is first used (the fragments it spreads included). */
function usesOf(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): Map<string, Use> {
  const uses = new Map<string, Use>();
  const typeInfo = new TypeInfo(schema);
  const fragments = document.definitions.filter((definition) => definition.kind === Kind.FRAGMENT_DEFINITION);
  for (const definition of [operation, ...fragments]) {
    /** The input object fields the visit is in, innermost last (`DeploymentFilter.ids`). */
    const objectFields: string[] = [];
    visit(definition, visitWithTypeInfo(typeInfo, {
      ObjectField: {
        enter: (node) => { objectFields.push(`${getNamedType(typeInfo.getParentInputType())?.name}.${node.name.value}`); },
        leave: () => { objectFields.pop(); },
      },
      Variable(node) {
        const argument = typeInfo.getArgument();
        const type = typeInfo.getInputType();
        if (!argument || !type || uses.has(node.name.value)) return;
        const directive = typeInfo.getDirective();
        const place = objectFields.at(-1)
          ?? (directive ? `@${directive.name}.${argument.name}` : `${typeInfo.getParentType()?.name}.${typeInfo.getFieldDef()?.name}.${argument.name}`);
        uses.set(node.name.value, { place, type });
      },
    }));
  }
  return uses;
}

/** Values of a type when no pool knows its place. */
function fallback(type: GraphQLInputType): unknown[] {
  const named = getNamedType(type);
  if (isEnumType(named)) return named.getValues().map((value) => value.name);
  if (isInputObjectType(named)) return [{}];
  switch (named.name) {
    case 'Boolean': return [true, false];
    case 'Int': return [2, 1, 100];
    case 'String': return ['prod', '', '%'];
    default: return ['nope'];
  }
}

/** A value of the variable's type from the pool of its place: one item, or a list of some of them. */
function valueFor(variableType: GraphQLInputType, pool: unknown[], random: Random | undefined, index: number): unknown {
  const unwrapped = isNonNullType(variableType) ? variableType.ofType : variableType;
  if (!isListType(unwrapped)) return random ? random.pick(pool) : pool[index % pool.length];
  if (!random) return index === 0 ? pool.slice(0, 3) : pool;
  return random.pick([[], [random.pick(pool)], pool.filter(() => random.next() < 0.5), [...pool].reverse()]);
}

/** Something of the wrong type for the variable: what a client's bug sends. */
function wrongValue(variableType: GraphQLInputType): unknown {
  const named = getNamedType(variableType);
  if (isInputObjectType(named)) return 'not an object';
  if (named.name === 'Int') return 'twenty';
  return { not: 'a scalar' };
}

/** The variable sets to run the operation with, distinct; one empty set for an operation without variables. */
export function variableSets(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, pools: ValuePools, random: Random, randomSets = 2): Variables[] {
  const definitions = operation.variableDefinitions ?? [];
  if (definitions.length === 0) return [{}];
  const uses = usesOf(schema, document, operation);
  const variables = definitions.map((definition) => {
    const type = typeFromAST(schema, definition.type) as GraphQLInputType;
    const use = uses.get(definition.variable.name.value);
    const pool = (use && pools.get(use.place)) ?? fallback(use?.type ?? type);
    return { name: definition.variable.name.value, type, pool, optional: !isNonNullType(type) || definition.defaultValue !== undefined, nullable: !isNonNullType(type) };
  });
  const set = (value: (variable: (typeof variables)[number], index: number) => unknown) => {
    const values: Variables = {};
    variables.forEach((variable, index) => {
      const chosen = value(variable, index);
      if (chosen !== undefined) values[variable.name] = chosen;
    });
    return values;
  };
  const sets = [
    set((variable) => valueFor(variable.type, variable.pool, undefined, 0)),
    set((variable) => (variable.nullable ? null : valueFor(variable.type, variable.pool, undefined, 0))),
    set((variable) => (variable.optional ? undefined : valueFor(variable.type, variable.pool, undefined, 1))),
    ...Array.from({ length: randomSets }, () => set((variable) => {
      if (variable.optional && random.next() < 0.2) return random.pick([undefined, ...(variable.nullable ? [null] : [])]);
      return valueFor(variable.type, variable.pool, random, 0);
    })),
    set((variable, index) => (index === 0 ? wrongValue(variable.type) : valueFor(variable.type, variable.pool, undefined, 0))),
  ];
  return [...new Map(sets.map((values) => [JSON.stringify(values), values])).values()];
}
