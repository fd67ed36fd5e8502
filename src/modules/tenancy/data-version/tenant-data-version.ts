// Reading a tenant's data version (tenant-data-version.entity.ts): one lookup by primary key, on the database
// the request reads (a replica's version is that of the data it has replayed).
import type { EntityManager } from '@mikro-orm/postgresql';

const VERSION_OF_TENANT = 'select version::text as version from tenant_data_version where tenant_id = ?';

/** The tenant's data version as a decimal string; '0' for a tenant no change has reached yet. */
export async function tenantDataVersion(em: EntityManager, tenantId: string): Promise<string> {
  const row = await em.getConnection('read').execute<{ version: string }>(VERSION_OF_TENANT, [tenantId], 'get');
  return (row as { version: string } | undefined)?.version ?? '0';
}
