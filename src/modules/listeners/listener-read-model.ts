// What every read of listeners returns and the Listener type resolves from: the row as PostgreSQL returns it
// (see common/lean-rows.ts), timestamps made Dates.
import { timestampFromText } from '../common/lean-rows.ts';
import type { ListenerComputeType } from './listener-compute-types.ts';

export interface ListenerReadModel {
  id: string;
  tenant_id: string;
  compute_type: ListenerComputeType;
  compute_id: string;
  k8s_namespaces: string[] | null;
  version: string | null;
  last_contact_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const timestamp = (value: unknown) => (value == null ? null : timestampFromText(value as string));

export function listenerFromRow(row: Record<string, unknown>): ListenerReadModel {
  row.created_at = timestamp(row.created_at);
  row.updated_at = timestamp(row.updated_at);
  row.last_contact_at = timestamp(row.last_contact_at);
  return row as unknown as ListenerReadModel;
}
