// Global ids are base64url("Type:uuid"). Every node of this API has a UUID key, so a global id that does not
// decode to one is bad input (BAD_USER_INPUT naming the argument), never a database error.
import { isObjectType, type GraphQLSchema } from 'graphql';
import { isUuid } from '../modules/common/uuid.ts';
import { badUserInput } from './errors.ts';

export function encodeGlobalId(typename: string, id: bigint | number | string): string {
  return Buffer.from(`${typename}:${id}`, 'utf8').toString('base64url');
}

/** `{typename, id}` of a well-formed global id, or undefined. */
export function parseGlobalId(value: string): { typename: string; id: string } | undefined {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(value)) return undefined;
  const match = /^([A-Z][A-Za-z0-9]*):(.+)$/.exec(Buffer.from(value, 'base64url').toString('utf8'));
  if (!match || !isUuid(match[2]!)) return undefined;
  return { typename: match[1]!, id: match[2]!.toLowerCase() };
}

export function decodeGlobalId(value: string): { typename: string; id: string } {
  const parsed = parseGlobalId(value);
  if (!parsed) throw badUserInput('id', `"${truncate(value)}" is not a global id of this API`);
  return parsed;
}

export function isNodeTypeName(schema: GraphQLSchema, typename: string): boolean {
  const type = schema.getType(typename);
  return isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node');
}

/**
 * The UUID behind an argument that names a `typename` object: its global id, or the raw UUID REST clients
 * know. A global id of another type is treated as not found (`null`); anything else is bad input.
 */
export function uuidOfArgument(value: string, typename: string, argument: string): string | null {
  if (isUuid(value)) return value.toLowerCase();
  const parsed = parseGlobalId(value);
  if (!parsed) throw badUserInput(argument, `"${truncate(value)}" is neither a UUID nor a global id`);
  return parsed.typename === typename ? parsed.id : null;
}

export const truncate = (value: string, max = 80) => (value.length > max ? `${value.slice(0, max)}…` : value);
