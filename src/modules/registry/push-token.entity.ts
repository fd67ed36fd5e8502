import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../common/base.entity.ts';

// A push token issued by `POST /v2/deployments/{deployment_id}/push-token` (docs/decisions.md#image-pushes). Only
// the SHA-256 of the token is stored, as for API keys: the token is 256 random bits, so a stolen row cannot be
// turned back into a password the registry's token server would accept. No foreign key to the deployment: the
// token server joins it, so a deleted deployment's tokens find nothing and grant nothing; rows past their
// expiry are removed by the next issue for any deployment.
export const RegistryPushTokenSchema = defineEntity({
  name: 'RegistryPushToken',
  extends: TenantOwnedSchema,
  indexes: [{ properties: ['expiresAt'] }],
  properties: {
    tokenHash: p.text().unique(),
    deploymentId: p.uuid().index(),
    /** The API key that asked for it: revoking the key ends its push tokens. */
    apiKeyId: p.uuid(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
  },
});

export type RegistryPushToken = InferEntity<typeof RegistryPushTokenSchema>;
