import { builder } from '../../graphql/builder.ts';
import { loadNodes } from '../../graphql/loaders.ts';
import { TagKeySchema } from './tag.entity.ts';
import type { TagKeyReadModel, TagValueReadModel } from './tag-read-model.ts';

// Declared before it is implemented, so types that point at each other need no inference cycle.
export const TagKeyRef = builder.objectRef<TagKeyReadModel>('TagKey');

builder.node(TagKeyRef, {
  description: 'A tag key of the tenant, such as `env`; its values label deployments.',
  id: { resolve: (key) => key.id },
  loadMany: (ids, ctx) => loadNodes(ctx.loaders.tags.keyById, ids),
  fields: (t) => ({
    uuid: t.field({ type: 'UUID', description: 'Raw id of the tag key.', resolve: (key) => key.id }),
    key: t.exposeString('key', { description: 'The key, e.g. `env`.' }),
    values: t.field({
      type: [TagValueRef],
      description: 'Values of this key, alphabetically.',
      resolve: (key, _args, ctx) => ctx.loaders.tags.valuesOfKey.load(key.id),
    }),
  }),
});

export const TagValueRef = builder.objectRef<TagValueReadModel>('TagValue');

builder.node(TagValueRef, {
  description: 'A value of a tag key, such as `env: production`. Filter deployments by it with `tagValueIds`.',
  id: { resolve: (value) => value.id },
  loadMany: (ids, ctx) => loadNodes(ctx.loaders.tags.valueById, ids),
  fields: (t) => ({
    uuid: t.field({ type: 'UUID', description: 'Raw id of the tag value (an element of `tag_value_ids` in REST).', resolve: (value) => value.id }),
    value: t.exposeString('value', { description: 'The value, e.g. `production`.' }),
    tagKey: t.field({
      type: TagKeyRef,
      description: 'The key this value belongs to.',
      resolve: async (value, _args, ctx) => (await ctx.loaders.tags.keyById.load(value.tag_key_id))!,
    }),
  }),
});

builder.queryField('tagKeys', (t) =>
  t.field({
    type: [TagKeyRef],
    description: 'Every tag key of the tenant, alphabetically, with their values: the choices for the `tagValueIds` filter.',
    resolve: (_root, _args, ctx) => ctx.em().getRepository(TagKeySchema).listRows(),
  }));
