import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../common/base.entity.ts';
import { DeploymentSchema } from './deployment.entity.ts';

// A secret value of a deployment. Only ciphertext is stored (see secret-cipher.ts); `hidden` keeps it out
// of any serialisation of the entity by accident.
export const SecretSchema = defineEntity({
  name: 'Secret',
  extends: TenantOwnedSchema,
  uniques: [{ properties: ['deployment', 'name'] }],
  properties: {
    deployment: () => p.manyToOne(DeploymentSchema).ref(),
    name: p.text(),
    valueCiphertext: p.blob().hidden(),
    /** Keeps the order of the deployment's `secrets` array. */
    position: p.integer(),
  },
});
export type Secret = InferEntity<typeof SecretSchema>;
