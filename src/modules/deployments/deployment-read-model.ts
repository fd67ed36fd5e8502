// A deployment's read model: what every read of deployments returns (repositories, loaders, the change feed),
// and what the GraphQL type resolves from; the REST door's legacy JSON is made from that type's answer, at the
// edge (rest/deployments.route.ts). It is the row as PostgreSQL returns it (see common/lean-rows.ts), never an
// entity: the jsonb value objects with their stored legacy keys. Secrets and secret references likewise. One
// of a listing holds only the columns its selection reads (common/selection.ts), with the id and creation
// time always: each field declares the columns it reads, so no resolver meets an absent one.
import type { SecretDecryptionError } from '../secrets/secret-cipher.ts';
import type { z } from 'zod';
import type { DeploymentSource, DeploymentStatus, DeploymentType } from './deployment-enums.ts';
import type { DeploymentRecordInput, resourceSpecSchema } from './deployment-record.schema.ts';
import type { SecretReferenceName, StoredSecretName } from './secret-fields.ts';

type RecordSourceConfig = DeploymentRecordInput['source_config'];
/** `source_config` as stored: the legacy object without the two parts kept in their own columns. */
export type StoredSourceConfig = Omit<RecordSourceConfig, 'resource_spec' | 'deployment_type'>;
export type StoredResourceSpec = z.output<typeof resourceSpecSchema>;
export type StoredSourceRevisionConfig = NonNullable<DeploymentRecordInput['source_revision_config']>;
export type StoredListenerConfig = NonNullable<RecordSourceConfig['listener_config']>;

export interface DeploymentReadModel {
  id: string;
  tenant_id: string;
  name: string;
  status: DeploymentStatus;
  source: DeploymentSource;
  deployment_type: DeploymentType;
  remote_reconciled: boolean;
  image_version: string | null;
  source_config: StoredSourceConfig;
  resource_spec: StoredResourceSpec | null;
  source_revision_config: StoredSourceRevisionConfig | null;
  latest_revision_id: string | null;
  active_revision_id: string | null;
  /**
   * As the driver hands it over (text, on a listing) or as a Date: read with timestampFromText
   * (common/lean-rows.ts), when a field reads it. Every listing reads the creation time (its order), most
   * selections show neither.
   */
  created_at: Date | string;
  updated_at: Date | string;
  /** Bumped on every change of the row: the ETag (writes/deployment-etag.ts). */
  version: number;
}

/** A secret's row: its stored fields (secret-fields.ts) and what reading it added. */
export interface SecretReadModel extends Record<StoredSecretName, string> {
  deployment_id: string;
  /** Read only for keys that may see secret values: the stored bytes as base64 text (secret-listing.ts). */
  value_ciphertext?: string;
  /** The key that wrote it (null: before fingerprints were recorded); read with the ciphertext. */
  key_fingerprint?: string | null;
  /** The value decrypted with its page's (secret-values.ts), or why it cannot be; absent: not decrypted. */
  revealed?: string | SecretDecryptionError;
}

/** A secret reference's row: its fields (secret-fields.ts). */
export interface SecretReferenceReadModel extends Record<SecretReferenceName, string> {
  deployment_id: string;
}
