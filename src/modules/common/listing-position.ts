// Lists ordered newest first (created_at desc, id desc): deployments, and the revisions of a deployment.
// Connection cursors name a position in that order, not an index, so a page boundary stays put when rows
// are added or removed elsewhere in the list.
import type { FilterQuery } from '@mikro-orm/postgresql';
import { isUuid } from './uuid.ts';

export interface ListingPosition {
  createdAt: Date;
  id: string;
}

type Listed = { createdAt: Date; id: string };

/** The cursor codec of one list; the prefix keeps a cursor of one list from passing for another's. */
export function listingCursors(list: string) {
  const prefix = `${list}:v1:`;
  return {
    encode({ createdAt, id }: ListingPosition): string {
      return Buffer.from(`${prefix}${createdAt.toISOString()}|${id}`, 'utf8').toString('base64url');
    },
    /** The position a cursor names, or undefined when it is not one of this list's. */
    decode(cursor: string): ListingPosition | undefined {
      if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
      const text = Buffer.from(cursor, 'base64url').toString('utf8');
      if (!text.startsWith(prefix)) return undefined;
      const [iso, id] = text.slice(prefix.length).split('|');
      const createdAt = new Date(iso ?? '');
      if (!id || !isUuid(id) || Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== iso) return undefined;
      return { createdAt, id: id.toLowerCase() };
    },
  };
}

/** Rows listed after `position` (older, or as old with a smaller id). */
export const listedAfter = <T extends Listed>({ createdAt, id }: ListingPosition) =>
  ({ $or: [{ createdAt: { $lt: createdAt } }, { createdAt, id: { $lt: id } }] }) as FilterQuery<T>;

/** Rows listed before `position` (newer, or as new with a larger id). */
export const listedBefore = <T extends Listed>({ createdAt, id }: ListingPosition) =>
  ({ $or: [{ createdAt: { $gt: createdAt } }, { createdAt, id: { $gt: id } }] }) as FilterQuery<T>;

/** The cursor's own row and those listed before it. */
export const listedAtOrBefore = <T extends Listed>({ createdAt, id }: ListingPosition) =>
  ({ $or: [{ createdAt: { $gt: createdAt } }, { createdAt, id: { $gte: id } }] }) as FilterQuery<T>;

/** The cursor's own row and those listed after it. */
export const listedAtOrAfter = <T extends Listed>({ createdAt, id }: ListingPosition) =>
  ({ $or: [{ createdAt: { $lt: createdAt } }, { createdAt, id: { $lte: id } }] }) as FilterQuery<T>;

export interface KeysetRange {
  after?: ListingPosition;
  before?: ListingPosition;
}

/** `where`, narrowed to the rows strictly between the range's positions. */
export function withinRange<T extends Listed>(where: FilterQuery<T>, { after, before }: KeysetRange): FilterQuery<T> {
  const and = [where];
  if (after) and.push(listedAfter<T>(after));
  if (before) and.push(listedBefore<T>(before));
  return and.length === 1 ? where : ({ $and: and } as FilterQuery<T>);
}
