// The GraphQL shapes of a paged list, shared by every list paged both ways (see paging.ts): the offset page
// (the shape of a REST listing) and the `totalCount` a connection adds to Relay's.
import type { ObjectRef } from '@pothos/core';
import { builder } from './builder.ts';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

export interface OffsetPage<Item> {
  resources: Item[];
  offset: number;
  hasNextPage: boolean;
  /** Counted only when `totalCount` is selected. */
  countTotal: () => Promise<number>;
}

export interface PageTexts {
  /** What the page is. */
  page: string;
  /** The items of a page, in their order. */
  items: string;
  /** What `totalCount` counts. */
  total: string;
}

/** The object type of an offset page of `item`s. */
export function offsetPageRef<Item>(name: string, item: ObjectRef<Types, Item>, texts: PageTexts) {
  return builder.objectRef<OffsetPage<Item>>(name).implement({
    description: texts.page,
    fields: (t) => ({
      resources: t.field({ type: [item], description: texts.items, resolve: (page) => page.resources }),
      offset: t.exposeInt('offset', {
        description: 'Offset of the next page: the request offset plus the number returned (echoed past the end).',
      }),
      hasNextPage: t.exposeBoolean('hasNextPage', { description: 'Whether another page follows; a page shorter than the limit is always the last.' }),
      totalCount: t.int({ description: `${texts.total} (counted only when selected).`, resolve: (page) => page.countTotal() }),
    }),
  });
}

/** Options of a connection type whose resolver returns `countTotal` beside its edges: adds `totalCount`. */
export function countedConnection(name: string, description: string, total: string) {
  return {
    name,
    description,
    fields: (c: PothosSchemaTypes.ObjectFieldBuilder<Types, object>) => ({
      totalCount: c.int({
        description: `${total} (counted only when selected).`,
        resolve: (connection) => (connection as { countTotal: () => Promise<number> }).countTotal(),
      }),
    }),
  };
}
