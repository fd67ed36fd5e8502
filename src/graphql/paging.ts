// The two ways a list is paged, shared by every list that offers them (deployments, a deployment's revisions):
// offset pages exactly as the REST listings define them, and Relay connections whose cursors name a position
// in the list's order (see modules/common/listing-position.ts).
import type { KeysetRange, ListingPosition } from '../modules/common/listing-position.ts';
import { badUserInput } from './errors.ts';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/** BAD_USER_INPUT unless `limit` is 1 to 100 and `offset` 0 or more. */
export function checkOffsetPage(limit: number, offset: number): void {
  if (limit < 1 || limit > MAX_PAGE_SIZE) throw badUserInput('limit', `must be between 1 and ${MAX_PAGE_SIZE}; got ${limit}`);
  if (offset < 0) throw badUserInput('offset', `must be 0 or more; got ${offset}`);
}

export interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

/** What a connection's arguments ask for: the rows between two positions, `count` of them from one end. */
export interface ConnectionSlice {
  range: KeysetRange;
  from: 'start' | 'end';
  count: number;
  /** The cursor on the far side of the slice, if any: whether rows lie beyond it must be read separately. */
  farCursor?: ListingPosition;
}

/** Reads and checks `first`/`last`/`after`/`before`; a cursor that is not one of this list's is BAD_USER_INPUT. */
export function connectionSlice(args: ConnectionArgs, decode: (cursor: string) => ListingPosition | undefined): ConnectionSlice {
  const { first, last } = args;
  if (first != null && last != null) throw badUserInput('last', 'give either first or last, not both');
  for (const [name, value] of [['first', first], ['last', last]] as const) {
    if (value != null && (value < 1 || value > MAX_PAGE_SIZE)) throw badUserInput(name, `must be between 1 and ${MAX_PAGE_SIZE}; got ${value}`);
  }
  const cursor = (value: string | null | undefined, argument: 'after' | 'before') => {
    if (value == null || value === '') return undefined;
    const position = decode(value);
    if (!position) throw badUserInput(argument, 'is not a cursor of this list');
    return position;
  };
  const range: KeysetRange = { after: cursor(args.after, 'after'), before: cursor(args.before, 'before') };
  const fromEnd = last != null;
  return { range, from: fromEnd ? 'end' : 'start', count: last ?? first ?? DEFAULT_PAGE_SIZE, farCursor: fromEnd ? range.before : range.after };
}

/**
 * The connection of a slice read in listing order: `more` tells whether the list goes on beyond the slice in
 * the direction it was read, `beyondFarSide` whether rows lie at or beyond its far cursor.
 */
export function connectionOf<Node>(
  nodes: readonly Node[], cursorOf: (node: Node) => string, slice: Pick<ConnectionSlice, 'from'>, more: boolean, beyondFarSide: boolean,
) {
  const edges = nodes.map((node) => ({ cursor: cursorOf(node), node }));
  const fromEnd = slice.from === 'end';
  return {
    edges,
    pageInfo: {
      hasNextPage: fromEnd ? beyondFarSide : more,
      hasPreviousPage: fromEnd ? more : beyondFarSide,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

export const EMPTY_CONNECTION = {
  edges: [],
  pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
  countTotal: async () => 0,
};
