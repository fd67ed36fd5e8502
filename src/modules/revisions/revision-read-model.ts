// A revision's read model: what its reads return and the GraphQL type resolves from (the REST door's legacy
// JSON is made from that type's answer, rest/revisions.route.ts). Its row as PostgreSQL returns it (see
// common/lean-rows.ts), the source revision config with its stored legacy keys.
import type { DeploymentSource, RevisionStatus } from '../deployments/deployment-enums.ts';
import type { StoredSourceRevisionConfig } from '../deployments/deployment-read-model.ts';

export interface RevisionReadModel {
  id: string;
  tenant_id: string;
  deployment_id: string;
  status: RevisionStatus;
  source: DeploymentSource;
  source_revision_config: StoredSourceRevisionConfig | null;
  remote_reconciled: boolean;
  status_message: string | null;
  created_at: Date;
  updated_at: Date;
}
