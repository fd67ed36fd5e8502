// The original's Revision record (docs/legacy-api.md#revision-record): every key required, in this order. It
// shapes GET /v2/deployments/{id}/revisions[/{revision_id}] (and their OpenAPI schemas); the import accepts
// it with the keys documents of the older format lack made optional (importedRevisionSchema).
import { z } from 'zod';
import { DEPLOYMENT_SOURCES, REVISION_STATUSES } from '../deployments/deployment-enums.ts';
import { sourceRevisionConfigSchema, timestamp, uuid } from '../deployments/deployment-record.schema.ts';

export const revisionRecordSchema = z.strictObject({
  id: uuid,
  created_at: timestamp,
  updated_at: timestamp,
  status: z.enum(REVISION_STATUSES),
  source: z.enum(DEPLOYMENT_SOURCES),
  source_revision_config: sourceRevisionConfigSchema,
});

/**
 * A revision in an import document. Documents written before revisions carried more than id, status and
 * created_at still import; the defaults are in docs/decisions.md#revisions.
 */
export const importedRevisionSchema = revisionRecordSchema.extend({
  updated_at: timestamp.nullish(),
  source: z.enum(DEPLOYMENT_SOURCES).nullish(),
  source_revision_config: sourceRevisionConfigSchema.nullish(),
  remote_reconciled: z.boolean().default(false),
});

export type ImportedRevision = z.output<typeof importedRevisionSchema>;
