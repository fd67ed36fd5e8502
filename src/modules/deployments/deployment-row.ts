// A deployment as the read path serves it: the entity's columns as plain data, relations as ids
// (see lean-rows.ts). Secrets and secret references likewise.
import type { Id } from '../common/lean-rows.ts';
import type { Deployment } from './deployment.entity.ts';

export type DeploymentRow = Pick<Deployment,
  'id' | 'name' | 'status' | 'source' | 'deploymentType' | 'remoteReconciled' | 'imageVersion' | 'sourceConfig' | 'resourceSpec'
  | 'sourceRevisionConfig' | 'latestRevisionId' | 'activeRevisionId' | 'createdAt' | 'updatedAt'> & { tenant: Id };

export interface SecretRow {
  deployment: Id;
  name: string;
  /** Read only for keys that may see secret values. */
  valueCiphertext?: Buffer;
}

export interface SecretReferenceRow {
  deployment: Id;
  name: string;
  secretName: string;
  secretKey: string;
}
