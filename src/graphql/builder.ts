// Configures the schema builder only; types and fields live with their domain in src/modules.
import SchemaBuilder, { brandWithType } from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin, { resolveNodes } from '@pothos/plugin-relay';
import type { GraphQLResolveInfo } from 'graphql';
import type { GraphQLContext } from './context.ts';
import { decodeGlobalId, encodeGlobalId, isNodeTypeName } from './global-id.ts';
import { badUserInput } from './errors.ts';

const MAX_NODE_IDS = 100;

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    UUID: { Input: string; Output: string };
    JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> };
    JSON: { Input: unknown; Output: unknown };
    SafeInt: { Input: number; Output: number };
  };
}>({
  plugins: [ErrorsPlugin, RelayPlugin],
  // Errors a user can fix are typed results of the mutations (modules/deployments/writes/write-errors.graphql.ts).
  errors: { defaultTypes: [], directResult: true },
  defaultFieldNullability: false,
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    encodeGlobalID: encodeGlobalId,
    decodeGlobalID: decodeGlobalId,
    idFieldOptions: { description: 'Global identifier of this object, for `node(id:)` and client caches.' },
    nodeTypeOptions: { description: 'An object that can be fetched again by its global `id` through `node(id:)`.' },
    nodeQueryOptions: {
      description: 'Fetches any object by its global id; null when it does not exist in your tenant.',
      args: { id: { description: 'A global id, as returned in any `id` field.' } },
      resolve: async (_root, { id }, ctx, info) => (await resolveKnownNodes(ctx, info, [id]))[0],
    },
    nodesQueryOptions: {
      description: 'Fetches several objects by global id, in the order given; null for each one not found in your tenant.',
      args: { ids: { description: `Global ids, as returned in \`id\` fields (at most ${MAX_NODE_IDS}).` } },
      resolve: (_root, { ids }, ctx, info) => {
        if (ids.length > MAX_NODE_IDS) throw badUserInput('ids', `at most ${MAX_NODE_IDS} ids per request; got ${ids.length}`);
        return resolveKnownNodes(ctx, info, ids);
      },
    },
    pageInfoTypeOptions: { description: 'Where a connection page sits in the whole list (Relay cursor connections).' },
    hasNextPageFieldOptions: { description: 'Whether more items follow the last edge of this page.' },
    hasPreviousPageFieldOptions: { description: 'Whether more items precede the first edge of this page.' },
    startCursorFieldOptions: { description: 'Cursor of the first edge; pass it as `before` to page backwards.' },
    endCursorFieldOptions: { description: 'Cursor of the last edge; pass it as `after` to page forwards.' },
    cursorFieldOptions: { description: 'Opaque position of this edge; stays valid while items are added.' },
    nodeFieldOptions: { description: 'The item at this edge.' },
    edgesFieldOptions: { description: 'The items of this page with their cursors.' },
    pageInfoFieldOptions: { description: 'Cursors and flags for fetching the neighbouring pages.' },
    firstArgOptions: { description: 'Page size counting forwards from `after` (1 to 100; 20 when neither first nor last is given).' },
    lastArgOptions: { description: 'Page size counting backwards from `before` (1 to 100).' },
    afterArgOptions: { description: 'Return items after this cursor (an `endCursor` or edge cursor).' },
    beforeArgOptions: { description: 'Return items before this cursor (a `startCursor` or edge cursor).' },
  },
});

builder.queryType({ description: 'Read access to the deployments and code-host integrations of your tenant.' });
builder.mutationType({ description: 'Changes to the deployments of your tenant (an API key with the write permission).' });

// A well-formed id naming a type that is not a node finds nothing, exactly like an unknown id.
async function resolveKnownNodes(ctx: GraphQLContext, info: GraphQLResolveInfo, ids: { typename: string; id: string }[]): Promise<unknown[]> {
  const known = ids.filter((id) => isNodeTypeName(info.schema, id.typename));
  // Entries may themselves be promises (objects another field of the request is still loading).
  const found: unknown[] = known.length > 0 ? await Promise.all(await resolveNodes(builder, ctx, info, known)) : [];
  // Pothos brands a loaded object with its type only on the field that loaded it; a second node field of
  // the same request gets the cached object unbranded, and the Node interface could not resolve its type.
  found.forEach((node, index) => node && brandWithType(node, known[index]!.typename as never));
  const byId = new Map(known.map((id, index) => [id, found[index]]));
  return ids.map((id) => byId.get(id) ?? null);
}
