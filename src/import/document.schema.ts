// The import document (docs/decisions.md#data-import). Strict: an unknown key is an error, because a typo
// would otherwise drop data silently. Deployment records use the legacy shape, exactly as
// GET /v2/deployments returns it, plus `remote_reconciled`, `tag_value_ids` and optional `revisions`.
import { z } from 'zod';
import { INTEGRATION_KINDS } from '../modules/integrations/integration.entity.ts';
import { REVISION_STATUSES } from '../modules/deployments/deployment-enums.ts';
import { deploymentRecordSchema, text, timestamp, uuid } from '../modules/deployments/deployment-record.schema.ts';

export const importedDeploymentSchema = deploymentRecordSchema.extend({
  remote_reconciled: z.boolean().default(false),
  tag_value_ids: z.array(uuid).default([]),
  revisions: z.array(z.strictObject({ id: uuid, status: z.enum(REVISION_STATUSES), created_at: timestamp })).default([]),
});

export const importDocumentSchema = z.strictObject({
  tenants: z.array(z.strictObject({ id: uuid, name: text })).default([]),
  tags: z.array(z.strictObject({
    tenant_id: uuid,
    key: text,
    values: z.array(z.strictObject({ id: uuid, value: text })),
  })).default([]),
  integrations: z.array(z.strictObject({
    id: uuid,
    tenant_id: uuid,
    kind: z.enum(INTEGRATION_KINDS),
    codehost: text,
    name: text,
    repositories: z.array(z.strictObject({
      id: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
      name: text,
      owner: text,
      url: text,
      default_branch: text,
    })).default([]),
  })).default([]),
  deployments: z.array(importedDeploymentSchema).default([]),
});

export type ImportDocument = z.output<typeof importDocumentSchema>;
export type ImportedDeployment = z.output<typeof importedDeploymentSchema>;
