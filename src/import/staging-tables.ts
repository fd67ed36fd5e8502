// The import's staging tables: the document as read, one temporary table per kind of row, filled with COPY
// while the document streams in (staging-writer.ts), then checked and applied to the real tables by set-based
// statements (import-checks.ts, apply-*.ts). Temporary and ON COMMIT DROP: they live in the import's one
// transaction only, are never seen by another session, and write no WAL.
//
// `position` columns are the element's index in its list, so a failing check can name the document's path.

type Column = 'int' | 'bigint' | 'uuid' | 'text' | 'boolean' | 'jsonb' | 'bytea' | 'timestamptz';

export const STAGING_TABLES = {
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
  import_deployment: {
    position: 'int', id: 'uuid', tenant_id: 'uuid', name: 'text', status: 'text', source: 'text', deployment_type: 'text',
    remote_reconciled: 'boolean', image_version: 'text', source_config: 'jsonb', resource_spec: 'jsonb',
    source_revision_config: 'jsonb', latest_revision_id: 'uuid', active_revision_id: 'uuid', created_at: 'timestamptz',
    updated_at: 'timestamptz',
    // source_config.integration_id, for the tenant check without reading the jsonb.
    integration_id: 'uuid',
  },
  // value_ciphertext null: the stored secret already holds this value under the current key (staging-writer.ts).
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
  // Filled after staging: the staged deployments that already exist (their owned lists may lose rows).
  import_existing_deployment: { id: 'uuid' },
  // Filled while applying: deployments whose columns or tag links changed (the summary counts them once).
  import_changed_deployment: { id: 'uuid' },
} as const satisfies Record<string, Record<string, Column>>;

export type StagingTable = keyof typeof STAGING_TABLES;
export type StagedRow<T extends StagingTable> = { [C in keyof (typeof STAGING_TABLES)[T]]: unknown };

export const columnsOf = (table: StagingTable): string[] => Object.keys(STAGING_TABLES[table]);

/** The statements that create every staging table, in the transaction that will drop them. */
export function createStagingTables(): string[] {
  return Object.entries(STAGING_TABLES).flatMap(([table, columns]) => {
    const definitions = Object.entries(columns).map(([name, type]) => `"${name}" ${type}`);
    // Large values stay uncompressed (storage external): each is read once, by the statement that applies it.
    // (An ALTER: PostgreSQL 15 has no STORAGE clause in CREATE TABLE.)
    const large = Object.entries(columns).filter(([, type]) => type === 'jsonb' || type === 'bytea');
    return [
      `create temporary table "${table}" (${definitions.join(', ')}) on commit drop`,
      ...(large.length ? [`alter table "${table}" ${large.map(([name]) => `alter column "${name}" set storage external`).join(', ')}`] : []),
    ];
  });
}
