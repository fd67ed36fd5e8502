// Rules shared by the import steps.
import { ImportError } from './parse-document.ts';

/** Fails with `path` when an existing row of that id belongs to another tenant: ids never move between tenants. */
export function assertSameTenant(existing: { tenant: { id: string } } | undefined, tenantId: string, path: string): void {
  if (existing && existing.tenant.id !== tenantId) {
    throw new ImportError(path, `already exists in another tenant (${existing.tenant.id}); ids cannot move between tenants`);
  }
}
