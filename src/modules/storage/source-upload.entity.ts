import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { TenantOwnedSchema } from '../common/base.entity.ts';

// An object path issued by `POST /v2/deployments/{deployment_id}/upload-url` (docs/decisions.md#source-archives):
// only a path recorded here, for that deployment of that tenant, is accepted as a `source_tarball_path`. The row
// outlives its deployment (no foreign key) until the sweep has removed its object (source-archive-sweep.ts);
// an upload no PATCH used is removed once `expires_at` has passed.
export const SourceUploadSchema = defineEntity({
  name: 'SourceUpload',
  extends: TenantOwnedSchema,
  indexes: [
    { properties: ['deploymentId'] },
    // The sweep's unused uploads past their time.
    { name: 'source_upload_unused_expiry_idx', expression: 'create index "source_upload_unused_expiry_idx" on "source_upload" ("expires_at") where "used_by_revision_id" is null' },
  ],
  properties: {
    deploymentId: p.uuid(),
    objectPath: p.text().unique(),
    createdAt: p.datetime(),
    /** Until when its upload URL may be used (a PUT after it is refused by the store). */
    urlExpiresAt: p.datetime(),
    /** Until when a PATCH may name it; unused after that, it is removed with its object. */
    expiresAt: p.datetime(),
    /** The first revision built from it; once set, the object stays as long as the deployment. */
    usedByRevisionId: p.uuid().nullable(),
  },
});

export type SourceUpload = InferEntity<typeof SourceUploadSchema>;
