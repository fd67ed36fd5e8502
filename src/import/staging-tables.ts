// The import's staging tables: temporary tables of the import's one transaction (ON COMMIT DROP: never seen by
// another session, no WAL), filled with COPY while the document streams in (staging-writer.ts).
//
// - Tenancy (tenants, tags, integrations and their repositories) is staged whole and applied before the
//   first batch of deployments, and again at the end for what arrived later (import-batches.ts).
// - Deployments and the rows they own are staged a batch at a time, checked, applied and emptied; a row whose
//   tenant or tag value the database does not hold yet (the document may declare it further on) moves to the
//   `import_deferred_*` copies, applied at the end.
// - `import_seen_*` remember every deployment and revision id of the document (the duplicate checks) and each
//   deployment's tenant and integration (the final integration check).
//
// `position` columns are the element's index in its list, so a failing check can name the document's path.

type Column = 'int' | 'bigint' | 'uuid' | 'text' | 'boolean' | 'jsonb' | 'bytea' | 'timestamptz';

const TENANCY_TABLES = {
  import_tenant: { position: 'int', id: 'uuid', name: 'text' },
  import_tag: { position: 'int', tenant_id: 'uuid', key: 'text' },
  import_tag_value: { tag_position: 'int', position: 'int', id: 'uuid', tenant_id: 'uuid', key: 'text', value: 'text' },
  import_integration: {
    position: 'int', id: 'uuid', tenant_id: 'uuid', kind: 'text', codehost: 'text', name: 'text', installation_id: 'bigint',
  },
  import_repository: {
    integration_position: 'int', position: 'int', integration_id: 'uuid', tenant_id: 'uuid', code_host_id: 'bigint',
    name: 'text', owner: 'text', url: 'text', default_branch: 'text',
  },
} as const satisfies Record<string, Record<string, Column>>;

const DEPLOYMENT_TABLES = {
  import_deployment: {
    position: 'int', id: 'uuid', tenant_id: 'uuid', name: 'text', status: 'text', source: 'text', deployment_type: 'text',
    remote_reconciled: 'boolean', image_version: 'text', source_config: 'jsonb', resource_spec: 'jsonb',
    source_revision_config: 'jsonb', latest_revision_id: 'uuid', active_revision_id: 'uuid', created_at: 'timestamptz',
    updated_at: 'timestamptz',
    // source_config.integration_id, for the tenant check without reading the jsonb.
    integration_id: 'uuid',
  },
  // A null value_ciphertext keeps the stored secret: it holds this value under the current key already.
  import_secret: {
    deployment_position: 'int', position: 'int', deployment_id: 'uuid', tenant_id: 'uuid', name: 'text',
    value_ciphertext: 'bytea', key_fingerprint: 'text',
  },
  import_secret_reference: {
    deployment_position: 'int', position: 'int', deployment_id: 'uuid', tenant_id: 'uuid', name: 'text',
    secret_name: 'text', secret_key: 'text',
  },
  import_tag_link: { deployment_position: 'int', position: 'int', deployment_id: 'uuid', tenant_id: 'uuid', tag_value_id: 'uuid' },
  import_revision: {
    deployment_position: 'int', position: 'int', id: 'uuid', deployment_id: 'uuid', tenant_id: 'uuid', status: 'text',
    source: 'text', source_revision_config: 'jsonb', remote_reconciled: 'boolean', created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
} as const satisfies Record<string, Record<string, Column>>;

/** Tables that only the statements fill. */
const WORK_TABLES = {
  import_seen_deployment: { position: 'int', id: 'uuid', tenant_id: 'uuid', integration_id: 'uuid' },
  import_seen_revision: { deployment_position: 'int', position: 'int', id: 'uuid' },
  // The batch's deployments that already exist (their owned lists may lose rows), and those whose columns or
  // tag links changed (the summary counts each once).
  import_existing_deployment: { id: 'uuid' },
  import_changed_deployment: { id: 'uuid' },
  // The batch's deployments to defer (first pass).
  import_unresolved_deployment: { id: 'uuid' },
} as const satisfies Record<string, Record<string, Column>>;

export const STAGING_TABLES = { ...TENANCY_TABLES, ...DEPLOYMENT_TABLES } as const;
export type StagingTable = keyof typeof STAGING_TABLES;
export type StagedRow<T extends StagingTable> = { [C in keyof (typeof STAGING_TABLES)[T]]: unknown };

export const TENANCY_TABLE_NAMES = Object.keys(TENANCY_TABLES) as (keyof typeof TENANCY_TABLES)[];
export const DEPLOYMENT_TABLE_NAMES = Object.keys(DEPLOYMENT_TABLES) as (keyof typeof DEPLOYMENT_TABLES)[];
export const deferredTable = (table: keyof typeof DEPLOYMENT_TABLES) => table.replace('import_', 'import_deferred_');

export const columnsOf = (table: StagingTable): string[] => Object.keys(STAGING_TABLES[table]);

function createTable(name: string, columns: Record<string, Column>): string {
  // Large values keep the default storage: compressed as they are staged (lz4 where the import's transaction
  // chose it, importer.ts), and the compressed value is what the statement that applies them copies into the
  // real table. Staged uncompressed (storage external), each was written out of line and compressed later:
  // the 100,000-deployment import's PostgreSQL spent about 1.2 s more (docs/performance.md#import).
  const definitions = Object.entries(columns).map(([column, type]) => `"${column}" ${type}`);
  return `create temporary table "${name}" (${definitions.join(', ')}) on commit drop`;
}

/** The statements that create every staging table, in the transaction that will drop them. */
export function createStagingTables(): string[] {
  return [
    ...Object.entries({ ...TENANCY_TABLES, ...DEPLOYMENT_TABLES, ...WORK_TABLES }).map(([name, columns]) => createTable(name, columns)),
    ...Object.entries(DEPLOYMENT_TABLES).map(([name, columns]) => createTable(deferredTable(name as keyof typeof DEPLOYMENT_TABLES), columns)),
    // Looked up by every batch's duplicate check.
    'create index on import_seen_deployment (id)',
    'create index on import_seen_revision (id)',
  ];
}
