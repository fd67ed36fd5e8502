// Every read of integrations, as lean rows (see integration-read-model.ts).
import type { FilterQuery } from '@mikro-orm/postgresql';
import { leanRows } from '../common/lean-rows.ts';
import { alphabetical } from '../common/text-queries.ts';
import { TenantOwnedRepository } from '../common/tenant-owned.repository.ts';
import type { Integration } from './integration.entity.ts';
import type { IntegrationKind } from './integration-kinds.ts';
import { integrationFromRow, type IntegrationReadModel } from './integration-read-model.ts';

export interface IntegrationQuery {
  kind?: IntegrationKind | null;
  codehost?: string | null;
  installed?: boolean | null;
}

export class IntegrationRepository extends TenantOwnedRepository<Integration> {
  /** One row per requested id, in the same order, or null (another tenant's looks like a missing one). */
  async findRowsByIds(ids: readonly string[]): Promise<(IntegrationReadModel | null)[]> {
    return (await this.rowsByIds<Record<string, unknown> & { id: string }>(ids)).map((row) => row && integrationFromRow(row));
  }

  /** The tenant's integrations, optionally of one kind, code host or installation state, by name (case-insensitive). */
  async list({ kind, codehost, installed }: IntegrationQuery = {}): Promise<IntegrationReadModel[]> {
    const where: FilterQuery<Integration> = {
      ...(kind && { kind }),
      ...(codehost != null && { codehost }),
      ...(installed != null && { installationId: installed ? { $ne: null } : null }),
    };
    const rows = await leanRows<Record<string, unknown>>(this.tenantSafeEm, this.entityName, where, { orderBy: [alphabetical('name'), { id: 'asc' }] });
    return rows.map(integrationFromRow);
  }
}
