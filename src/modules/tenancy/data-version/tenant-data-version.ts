// Reading a tenant's data versions (tenant-data-version.entity.ts): one lookup by primary key, on the database
// the request reads (a replica's versions are those of the data it has replayed).
import type { EntityManager } from '@mikro-orm/postgresql';

/** Decimal strings; '0' for a tenant no change has reached yet. */
export interface TenantDataVersions {
  /** Every change but log lines. */
  data: string;
  /** Revision log lines. */
  logs: string;
}

const VERSIONS_OF_TENANT = 'select version::text as data, log_version::text as logs from tenant_data_version where tenant_id = ?';

export async function tenantDataVersions(em: EntityManager, tenantId: string): Promise<TenantDataVersions> {
  const row = await em.getConnection('read').execute<TenantDataVersions>(VERSIONS_OF_TENANT, [tenantId], 'get');
  return (row as TenantDataVersions | undefined) ?? { data: '0', logs: '0' };
}

const VERSION_OF_DEPLOYMENT = 'select version from deployment where tenant_id = ? and id = ?';

/**
 * One deployment's version (bumped on every change of its row), on the database the request reads: what its
 * representation's tag is made of (deployments/deployment-tag.ts). Undefined for one the tenant does not have.
 */
export async function deploymentVersion(em: EntityManager, tenantId: string, deploymentId: string): Promise<number | undefined> {
  const row = await em.getConnection('read').execute<{ version: number }>(VERSION_OF_DEPLOYMENT, [tenantId, deploymentId.toLowerCase()], 'get');
  return (row as { version: number } | undefined)?.version;
}
