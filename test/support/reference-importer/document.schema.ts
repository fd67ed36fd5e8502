// The previous importer's document: the whole of it checked at once, built from the current lists' schemas.
import { z } from 'zod';
import {
  importedDeploymentSchema, importedIntegrationSchema, importedTagSchema, importedTenantSchema, type ImportedDeployment,
} from '../../../src/import/document.schema.ts';

export const importDocumentSchema = z.strictObject({
  tenants: z.array(importedTenantSchema).default([]),
  tags: z.array(importedTagSchema).default([]),
  integrations: z.array(importedIntegrationSchema).default([]),
  deployments: z.array(importedDeploymentSchema).default([]),
});

export type ImportDocument = z.output<typeof importDocumentSchema>;
export type { ImportedDeployment };
