// A revision as the read path serves it: its row as PostgreSQL returns it (see common/lean-rows.ts), the
// source revision config with its stored legacy keys.
import type { DeploymentSource, RevisionStatus } from '../deployments/deployment-enums.ts';
import type { StoredSourceRevisionConfig } from '../deployments/deployment-row.ts';

export interface RevisionRow {
  id: string;
  tenant_id: string;
  deployment_id: string;
  status: RevisionStatus;
  source: DeploymentSource;
  source_revision_config: StoredSourceRevisionConfig | null;
  remote_reconciled: boolean;
  created_at: Date;
  updated_at: Date;
}
