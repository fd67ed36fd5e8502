// The import document (docs/decisions.md#data-import). Strict: an unknown key is an error, because a typo
// would otherwise drop data silently. Deployment records use the legacy shape, exactly as
// GET /v2/deployments returns it, plus `remote_reconciled`, `tag_value_ids` and optional `revisions` (the
// original's Revision record, see revision-record.schema.ts).
import { z } from 'zod';
import { INTEGRATION_KINDS } from '../../../src/modules/integrations/integration.entity.ts';
import { deploymentRecordSchema, text, uuid } from '../../../src/modules/deployments/deployment-record.schema.ts';
import { importedRevisionSchema } from '../../../src/modules/revisions/revision-record.schema.ts';

/** An id the code host assigns (repositories, installations): a whole number JavaScript holds exactly. */
const codeHostId = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

export const importedDeploymentSchema = deploymentRecordSchema.extend({
  remote_reconciled: z.boolean().default(false),
  tag_value_ids: z.array(uuid).default([]),
  revisions: z.array(importedRevisionSchema).default([]),
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
    /** Optional: documents written before integrations carried it still import (docs/decisions.md#integration-installations). */
    installation_id: codeHostId.nullish(),
    repositories: z.array(z.strictObject({
      id: codeHostId,
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
