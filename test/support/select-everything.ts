// The fullest selection a legitimate client can write: every field reachable from a type without arguments,
// never revisiting a type on the path (so it is finite). Statement counts and the query limits use it.
import { getNamedType, isLeafType, isObjectType, type GraphQLObjectType } from 'graphql';

export function selectEverything(type: GraphQLObjectType, path: string[] = []): string {
  const fields = Object.values(type.getFields()).filter((field) => field.args.every((arg) => !arg.type.toString().endsWith('!')));
  return `{ ${fields.map((field) => {
    const named = getNamedType(field.type);
    if (isLeafType(named)) return field.name;
    if (!isObjectType(named) || path.includes(named.name)) return '';
    return `${field.name} ${selectEverything(named, [...path, type.name])}`;
  }).filter(Boolean).join(' ')} }`;
}
