// The import document (docs/decisions.md#data-import): one JSON object of four lists, each optional. The
// importer reads it as a stream (document-reader.ts) and checks each element of a list on its own with the
// schema of its section, so memory stays bounded whatever the size of the document. Strict: an unknown key is
// an error, because a typo would otherwise drop data silently. Deployment records use the legacy shape, exactly
// as GET /v2/deployments returns it, plus `remote_reconciled`, `tag_value_ids` and optional `revisions` (the
// original's Revision record, see revision-record.schema.ts).
import { z } from 'zod';
import { INTEGRATION_KINDS } from '../modules/integrations/integration-kinds.ts';
import { deploymentRecordSchema, text, uuid } from '../modules/deployments/deployment-record.schema.ts';
import { importedRevisionSchema } from '../modules/revisions/revision-record.schema.ts';

/** An id the code host assigns (repositories, installations): a whole number JavaScript holds exactly. */
const codeHostId = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

export const importedTenantSchema = z.strictObject({ id: uuid, name: text });

export const importedTagSchema = z.strictObject({
  tenant_id: uuid,
  key: text,
  values: z.array(z.strictObject({ id: uuid, value: text })),
});

export const importedIntegrationSchema = z.strictObject({
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
});

export const importedDeploymentSchema = deploymentRecordSchema.extend({
  remote_reconciled: z.boolean().default(false),
  tag_value_ids: z.array(uuid).default([]),
  revisions: z.array(importedRevisionSchema).default([]),
});

/** The lists of a document, in the order the importer checks and writes them. */
export const SECTIONS = ['tenants', 'tags', 'integrations', 'deployments'] as const;
export type SectionName = (typeof SECTIONS)[number];
export const isSection = (key: string): key is SectionName => (SECTIONS as readonly string[]).includes(key);

/** The schema of one element of each list. */
export const recordSchemas = {
  tenants: importedTenantSchema,
  tags: importedTagSchema,
  integrations: importedIntegrationSchema,
  deployments: importedDeploymentSchema,
} satisfies Record<SectionName, z.ZodType>;

export type ImportedTenant = z.output<typeof importedTenantSchema>;
export type ImportedTag = z.output<typeof importedTagSchema>;
export type ImportedIntegration = z.output<typeof importedIntegrationSchema>;
export type ImportedDeployment = z.output<typeof importedDeploymentSchema>;
