import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../common/base.entity.ts';
import { DeploymentSchema } from './deployment.entity.ts';
import { SECRET_FIELDS, STORED_SECRET_NAMES, secretFieldsOf } from './secret-fields.ts';

// A secret value of a deployment. Only ciphertext is stored (see secrets/secret-cipher.ts); `hidden` keeps it out
// of any serialisation of the entity by accident. Its stored fields are declared in secret-fields.ts (the value
// there is this ciphertext); the fingerprint and the position are the row's own.
export const SecretSchema = defineEntity({
  name: 'Secret',
  extends: TenantOwnedSchema,
  uniques: [{ properties: ['deployment', 'name'] }],
  properties: {
    deployment: () => p.manyToOne(DeploymentSchema).ref(),
    ...secretFieldsOf(SECRET_FIELDS, () => p.text(), STORED_SECRET_NAMES),
    valueCiphertext: p.blob().hidden(),
    /**
     * Fingerprint of the key that wrote the ciphertext (see key-fingerprint.ts); null only on rows written
     * before fingerprints were recorded. Indexed: start-up and /ready ask which keys the stored secrets need.
     */
    keyFingerprint: p.text().nullable().index(),
    /** Keeps the order of the deployment's `secrets` array. */
    position: p.integer(),
  },
});
export type Secret = InferEntity<typeof SecretSchema>;
