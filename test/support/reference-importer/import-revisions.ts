// The revisions of an import document's deployments: added or updated, never removed. A revision of a document
// written before revisions carried their full record gets the defaults of docs/decisions.md#revisions.
import type { EntityManager } from '@mikro-orm/postgresql';
import { camelCase, mapKeys, withDeclaredKeys } from '../../../src/modules/common/legacy-json.ts';
import { ACROSS_TENANTS } from '../../../src/modules/common/tenant-scope.ts';
import type { Deployment } from '../../../src/modules/deployments/deployment.entity.ts';
import { sourceRevisionConfigSchema } from '../../../src/modules/deployments/deployment-record.schema.ts';
import { RevisionSchema } from '../../../src/modules/revisions/revision.entity.ts';
import type { ImportedRevision } from '../../../src/modules/revisions/revision-record.schema.ts';
import type { ImportDocument, ImportedDeployment } from './document.schema.ts';
import { ImportError } from './parse-document.ts';

/** The columns a revision record describes; a key left out (or null) takes its default, so dropping one resets it. */
function revisionColumns(revision: ImportedRevision, deployment: ImportedDeployment) {
  const config = revision.source_revision_config;
  return {
    status: revision.status,
    source: revision.source ?? deployment.source,
    sourceRevisionConfig: config ? mapKeys(withDeclaredKeys(sourceRevisionConfigSchema, config) as object, camelCase) : null,
    remoteReconciled: revision.remote_reconciled,
    createdAt: revision.created_at,
    updatedAt: revision.updated_at ?? revision.created_at,
  };
}

export async function importRevisions(em: EntityManager, doc: ImportDocument, deployments: Map<string, Deployment>): Promise<void> {
  const ids = doc.deployments.flatMap((d) => d.revisions.map((r) => r.id));
  const existing = new Map((await em.find(RevisionSchema, { id: { $in: ids } }, ACROSS_TENANTS)).map((r) => [r.id, r]));
  doc.deployments.forEach((input, i) => {
    const deployment = deployments.get(input.id)!;
    input.revisions.forEach((revision, j) => {
      const row = existing.get(revision.id);
      if (row && row.deployment.id !== input.id) {
        throw new ImportError(`deployments[${i}].revisions[${j}].id`, `revision already belongs to deployment ${row.deployment.id}`);
      }
      const fields = revisionColumns(revision, input);
      if (row) em.assign(row, fields);
      else em.create(RevisionSchema, { id: revision.id, tenant: deployment.tenant, deployment, ...fields });
    });
  });
}
