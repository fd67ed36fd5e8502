// Push tokens in the database (docs/decisions.md#image-pushes): issued for one deployment of one tenant by a key
// that may write, kept as their SHA-256 only, and found again by the token server from the password a registry
// client sends. A token is good while it has not expired, its deployment exists, and the key that asked for it
// is not revoked and still may write for that tenant: deleting the deployment or revoking the key ends it.
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { timestampFromText } from '../common/lean-rows.ts';
import { TenantSchema } from '../tenancy/tenant.entity.ts';
import { DeploymentSchema } from '../deployments/deployment.entity.ts';
import { DeploymentNotFound, WriteRefusal } from '../deployments/writes/write-problems.ts';
import { RegistryPushTokenSchema } from './push-token.entity.ts';

/** What the original's CLI looks for in the refusal of another source (`only available for 'internal_docker' source deployments`). */
export class PushTokensUnavailable extends WriteRefusal {
  constructor() {
    super('Push tokens are only available for \'internal_docker\' source deployments.');
  }
}

/** This service is the token server of no registry (REGISTRY_URL unset): push-token's documented 501. */
export class RegistryNotConfigured extends WriteRefusal {
  constructor() {
    super('This service runs no container registry, so it issues no push tokens: push the image to a registry of yours and deploy it with '
      + 'PATCH /v2/deployments/{deployment_id} and source_revision_config.image_uri.');
  }
}

/** Tokens start with this, so that one found in a log or a config file says what it is. */
const TOKEN_PREFIX = 'dpt_';

export const hashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

export interface IssuedPushToken {
  token: string;
  expiresAt: Date;
}

/** Whose a presented token is, while it is good. */
export interface PushTokenHolder {
  tenantId: string;
  deploymentId: string;
  expiresAt: Date;
}

/**
 * A new push token for the tenant's internal_docker deployment `deploymentId`, recorded in one transaction of
 * `em` (scoped to the tenant). DeploymentNotFound for another tenant's as for an unknown one.
 */
export async function issuePushToken(
  em: EntityManager, tenantId: string, deploymentId: string, apiKeyId: string, lifetimeSeconds: number, now = new Date(),
): Promise<IssuedPushToken> {
  return em.transactional(async (tx) => {
    const deployment = await pushingDeployment(tx, tenantId, deploymentId);
    // Expired rows grant nothing; the tenant's are removed here so that the table does not grow with every push.
    await tx.nativeDelete(RegistryPushTokenSchema, { tenant: tenantId, expiresAt: { $lte: now } });
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const expiresAt = new Date(now.getTime() + lifetimeSeconds * 1000);
    tx.create(RegistryPushTokenSchema, {
      tenant: tx.getReference(TenantSchema, tenantId), tokenHash: hashOf(token), deploymentId: deployment.id, apiKeyId, createdAt: now, expiresAt,
    } as never);
    return { token, expiresAt };
  });
}

/** The tenant's deployment a push token may be issued for: DeploymentNotFound or PushTokensUnavailable otherwise. */
export async function pushingDeployment(em: EntityManager, tenantId: string, deploymentId: string): Promise<{ id: string }> {
  const deployment = await em.findOne(DeploymentSchema, { tenant: tenantId, id: deploymentId.toLowerCase() }, { fields: ['id', 'source'] });
  if (!deployment) throw new DeploymentNotFound(deploymentId);
  if (deployment.source !== 'internal_docker') throw new PushTokensUnavailable();
  return deployment;
}

/**
 * The holder of `token` while it is good, else undefined. One statement, on an EntityManager of no tenant (the
 * token says which tenant): the joins are the rules, so a deleted deployment or a revoked key finds no row.
 */
export async function pushTokenHolder(em: EntityManager, token: string, now = new Date()): Promise<PushTokenHolder | undefined> {
  if (!token.startsWith(TOKEN_PREFIX)) return undefined;
  const [row] = await em.getConnection().execute<{ tenant_id: string; deployment_id: string; expires_at: string | Date }[]>(
    `select t.tenant_id, t.deployment_id, t.expires_at from registry_push_token t
     join deployment d on d.id = t.deployment_id and d.tenant_id = t.tenant_id
     join api_key k on k.id = t.api_key_id and k.revoked_at is null and k.may_write
     join api_key_tenant kt on kt.api_key_id = k.id and kt.tenant_id = t.tenant_id
     where t.token_hash = ? and t.expires_at > ?`,
    [hashOf(token), now],
  );
  return row && { tenantId: row.tenant_id, deploymentId: row.deployment_id, expiresAt: timestampFromText(row.expires_at) };
}
