import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../common/base.entity.ts';
import { DeploymentSchema } from './deployment.entity.ts';
import { camelCaseKeys } from '../common/legacy-json.ts';
import { SECRET_REFERENCE_FIELDS, secretFieldsOf } from './secret-fields.ts';

// An environment variable `name` of a deployment filled from key `secretKey` of a named secret. The fields are
// declared in secret-fields.ts; the position is the row's own.
export const SecretReferenceSchema = defineEntity({
  name: 'SecretReference',
  extends: TenantOwnedSchema,
  uniques: [{ properties: ['deployment', 'name'] }],
  properties: {
    deployment: () => p.manyToOne(DeploymentSchema).ref(),
    ...camelCaseKeys(secretFieldsOf(SECRET_REFERENCE_FIELDS, () => p.text())),
    /** Keeps the order of the deployment's `secret_references` array. */
    position: p.integer(),
  },
});
export type SecretReference = InferEntity<typeof SecretReferenceSchema>;
