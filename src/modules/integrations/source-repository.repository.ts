// Every read of source repositories, as lean rows (see integration-read-model.ts): by id, and the listings of
// many integrations at once, with only the columns the caller asks for.
import type { QueryOrderMap } from '@mikro-orm/postgresql';
import { propertiesOfColumns } from '../common/lean-rows.ts';
import type { SelectedColumns } from '../common/selection.ts';
import { alphabetical } from '../common/text-queries.ts';
import { TenantOwnedRepository } from '../common/tenant-owned.repository.ts';
import type { SourceRepository } from './source-repository.entity.ts';
import { sourceRepositoryFromRow, type SourceRepositoryReadModel } from './integration-read-model.ts';

/** The listing order of docs/decisions.md#ordering: owner, then name (both case-insensitive), then the code host's id. */
const listingOrder = (): QueryOrderMap<SourceRepository>[] => [alphabetical('owner'), alphabetical('name'), { codeHostId: 'asc' }];
/** What a listing reads whatever is asked: the id, and the integration it is grouped by. */
const ALWAYS_READ = ['id', 'integration_id'];

type DriverRow = Record<string, unknown> & { id: string; integration_id: string };

export class SourceRepositoryRepository extends TenantOwnedRepository<SourceRepository> {
  /** One row per requested id, in the same order, or null where the tenant has no such repository. */
  async findRowsByIds(ids: readonly string[]): Promise<(SourceRepositoryReadModel | null)[]> {
    return (await this.rowsByIds<DriverRow>(ids)).map((row) => row && sourceRepositoryFromRow(row));
  }

  /**
   * The repositories of many integrations in one statement, one list per requested integration id, in the
   * listing order. Only `columns` are read (and the id and integration); undefined: every column.
   */
  async findRowsOfIntegrations(integrationIds: readonly string[], columns?: SelectedColumns): Promise<SourceRepositoryReadModel[][]> {
    const fields = propertiesOfColumns(this.tenantSafeEm, this.entityName, columns, ALWAYS_READ);
    const parent = { property: 'integration', column: 'integration_id' } as const;
    const listings = await this.rowsGroupedBy<DriverRow>(parent, integrationIds, listingOrder(), fields);
    return listings.map((rows) => rows.map(sourceRepositoryFromRow));
  }
}
