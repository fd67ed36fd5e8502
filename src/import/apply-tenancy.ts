// Writes the staged tenants, tag keys and values, integrations and their repositories (import-checks.ts has
// passed). Each kind of row is one UPDATE of the rows that differ and one INSERT of the rows that are new,
// so a re-import writes nothing; an integration's repositories are replaced by what the document lists.
//
// Hand-written SQL: MikroORM's QueryBuilder builds neither UPDATE … FROM nor INSERT … SELECT, which set-based
// writes from staging tables are. Every statement on a tenant-owned table also requires the stored row's
// tenant to be the document's, although the checks already refused a document that would move one.
import type pg from 'pg';

export interface ChangeCounts {
  created: number;
  updated: number;
  deleted: number;
}

export const noChanges = (): ChangeCounts => ({ created: 0, updated: 0, deleted: 0 });

export function addCounts(total: ChangeCounts, counts: ChangeCounts): void {
  total.created += counts.created;
  total.updated += counts.updated;
  total.deleted += counts.deleted;
}

/** Runs the statements of one kind of row and counts what they changed. */
export async function countChanges(
  client: pg.ClientBase, now: Date, statements: { created?: string[]; updated?: string[]; deleted?: string[] },
): Promise<ChangeCounts> {
  const counts = noChanges();
  for (const kind of ['deleted', 'updated', 'created'] as const) {
    // The statements that stamp rows (created_at, updated_at) take the import's time as $1; the others take none.
    for (const sql of statements[kind] ?? []) counts[kind] += (await client.query(sql, sql.includes('$1') ? [now] : [])).rowCount ?? 0;
  }
  return counts;
}

const TENANTS = {
  updated: [`update tenant t set name = s.name, updated_at = $1 from import_tenant s where t.id = s.id and t.name <> s.name`],
  created: [`insert into tenant (id, name, created_at, updated_at)
    select s.id, s.name, $1, $1 from import_tenant s where not exists (select 1 from tenant t where t.id = s.id)`],
};

const TAG_KEYS = {
  created: [`insert into tag_key (id, tenant_id, key, created_at)
    select gen_random_uuid(), s.tenant_id, s.key, $1 from import_tag s
    where not exists (select 1 from tag_key k where k.tenant_id = s.tenant_id and k.key = s.key)`],
};

/** After the tag keys: a value's key is found by tenant and key. */
const TAG_VALUES = {
  updated: [`update tag_value v set tag_key_id = k.id, value = s.value
    from import_tag_value s join tag_key k on k.tenant_id = s.tenant_id and k.key = s.key
    where v.id = s.id and v.tenant_id = s.tenant_id and (v.tag_key_id <> k.id or v.value <> s.value)`],
  created: [`insert into tag_value (id, tenant_id, tag_key_id, value, created_at)
    select s.id, s.tenant_id, k.id, s.value, $1 from import_tag_value s join tag_key k on k.tenant_id = s.tenant_id and k.key = s.key
    where not exists (select 1 from tag_value v where v.id = s.id)`],
};

const INTEGRATIONS = {
  updated: [`update integration i set kind = s.kind, codehost = s.codehost, name = s.name, installation_id = s.installation_id, updated_at = $1
    from import_integration s
    where i.id = s.id and i.tenant_id = s.tenant_id
      and (i.kind, i.codehost, i.name, i.installation_id) is distinct from (s.kind, s.codehost, s.name, s.installation_id)`],
  created: [`insert into integration (id, tenant_id, kind, codehost, name, installation_id, created_at, updated_at)
    select s.id, s.tenant_id, s.kind, s.codehost, s.name, s.installation_id, $1, $1 from import_integration s
    where not exists (select 1 from integration i where i.id = s.id)`],
};

/** Matched by integration and code-host id; an imported integration keeps only the repositories it lists. */
const REPOSITORIES = {
  deleted: [`delete from source_repository r using import_integration i
    where r.integration_id = i.id and r.tenant_id = i.tenant_id
      and not exists (select 1 from import_repository s where s.integration_id = r.integration_id and s.code_host_id = r.code_host_id)`],
  updated: [`update source_repository r set name = s.name, owner = s.owner, url = s.url, default_branch = s.default_branch, updated_at = $1
    from import_repository s
    where r.integration_id = s.integration_id and r.code_host_id = s.code_host_id and r.tenant_id = s.tenant_id
      and (r.name, r.owner, r.url, r.default_branch) is distinct from (s.name, s.owner, s.url, s.default_branch)`],
  created: [`insert into source_repository (id, tenant_id, integration_id, code_host_id, name, owner, url, default_branch, created_at, updated_at)
    select gen_random_uuid(), s.tenant_id, s.integration_id, s.code_host_id, s.name, s.owner, s.url, s.default_branch, $1, $1
    from import_repository s
    where not exists (select 1 from source_repository r where r.integration_id = s.integration_id and r.code_host_id = s.code_host_id)`],
};

export async function applyTenancy(client: pg.ClientBase, now: Date): Promise<ChangeCounts> {
  const total = noChanges();
  for (const statements of [TENANTS, TAG_KEYS, TAG_VALUES, INTEGRATIONS, REPOSITORIES]) addCounts(total, await countChanges(client, now, statements));
  return total;
}
