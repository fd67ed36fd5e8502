// The read models of integrations and their source repositories: what their reads return and their GraphQL
// types resolve from. Rows as PostgreSQL returns them (see common/lean-rows.ts), with the timestamps made
// Dates and the code host's bigint ids made numbers (the driver hands both over as text; ids stay below 2^53,
// see the entities).
import { timestampFromText } from '../common/lean-rows.ts';
import type { IntegrationKind } from './integration-kinds.ts';

export interface IntegrationReadModel {
  id: string;
  tenant_id: string;
  kind: IntegrationKind;
  codehost: string;
  name: string;
  installation_id: number | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * A repository of a listing holds only the columns its selection reads (common/selection.ts), with its id
 * and its integration's always: each field declares the columns it reads, so no resolver meets an
 * absent one.
 */
export interface SourceRepositoryReadModel {
  id: string;
  tenant_id: string;
  integration_id: string;
  code_host_id: number;
  name: string;
  owner: string;
  url: string;
  default_branch: string;
  created_at: Date;
  updated_at: Date;
}

/** Bigint text as a number, null as null, an absent column as absent. */
const numberFromText = (value: unknown) => (value === null || value === undefined ? value : Number(value));
const timestamp = (value: unknown) => (value === undefined ? value : timestampFromText(value as string));

export function integrationFromRow(row: Record<string, unknown>): IntegrationReadModel {
  row.installation_id = numberFromText(row.installation_id);
  row.created_at = timestamp(row.created_at);
  row.updated_at = timestamp(row.updated_at);
  return row as unknown as IntegrationReadModel;
}

export function sourceRepositoryFromRow(row: Record<string, unknown>): SourceRepositoryReadModel {
  row.code_host_id = numberFromText(row.code_host_id);
  row.created_at = timestamp(row.created_at);
  row.updated_at = timestamp(row.updated_at);
  return row as unknown as SourceRepositoryReadModel;
}
