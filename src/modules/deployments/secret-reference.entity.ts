import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../common/base.entity.ts';
import { DeploymentSchema } from './deployment.entity.ts';

// An environment variable `name` of a deployment filled from key `secretKey` of a named secret.
export const SecretReferenceSchema = defineEntity({
  name: 'SecretReference',
  extends: TenantOwnedSchema,
  uniques: [{ properties: ['deployment', 'name'] }],
  properties: {
    deployment: () => p.manyToOne(DeploymentSchema).ref(),
    name: p.text(),
    secretName: p.text(),
    secretKey: p.text(),
    /** Keeps the order of the deployment's `secret_references` array. */
    position: p.integer(),
  },
});
export type SecretReference = InferEntity<typeof SecretReferenceSchema>;
