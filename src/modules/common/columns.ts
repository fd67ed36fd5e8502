// Column helpers shared by the entities. Ids are UUIDs because they are public (the REST layer and
// imports use them as they are).
import { p } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';

export const uuidPrimaryKey = () => p.uuid().primary().onCreate(() => randomUUID());
export const createdAt = () => p.datetime().onCreate(() => new Date());
export const updatedAt = () => p.datetime().onCreate(() => new Date()).onUpdate(() => new Date());
