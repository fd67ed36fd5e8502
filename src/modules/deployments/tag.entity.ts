import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../common/base.entity.ts';
import { createdAt } from '../common/columns.ts';
import { TagKeyRepository, TagValueRepository } from './tag.repository.ts';

// Tags are key/value pairs per tenant. Values of one key are alternatives when filtering (OR); values of
// different keys must all match (AND), so a value always knows its key.
export const TagKeySchema = defineEntity({
  name: 'TagKey',
  extends: TenantOwnedSchema,
  repository: () => TagKeyRepository,
  uniques: [{ properties: ['tenant', 'key'] }],
  properties: {
    key: p.text(),
    values: () => p.oneToMany(TagValueSchema).mappedBy('tagKey'),
    createdAt: createdAt(),
  },
});
export type TagKey = InferEntity<typeof TagKeySchema>;

export const TagValueSchema = defineEntity({
  name: 'TagValue',
  extends: TenantOwnedSchema,
  repository: () => TagValueRepository,
  uniques: [{ properties: ['tagKey', 'value'] }],
  properties: {
    tagKey: () => p.manyToOne(TagKeySchema).ref(),
    value: p.text(),
    createdAt: createdAt(),
  },
});
export type TagValue = InferEntity<typeof TagValueSchema>;
