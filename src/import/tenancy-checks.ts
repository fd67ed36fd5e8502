// The checks of the staged tenancy (tenants, tags, integrations) that need the whole of it, or the database,
// run before it is written: each is one statement that returns the first offending element in document order,
// with its path and problem worded as the unit-of-work importer worded them, in the order it ran them (the
// document's own consistency, then tenants, tags, integrations). Deployments: batch-checks.ts.
//
// Hand-written SQL: window functions, anti-joins and UNIONs over temporary tables are beyond what MikroORM's
// QueryBuilder builds. The import works across tenants by design (it is an operator tool), so these read
// the real tables without a tenant filter; what they look for is precisely a row of another tenant.
import type pg from 'pg';
import { ImportError } from './import-error.ts';

export const ANOTHER_TENANT = `'already exists in another tenant (%s); ids cannot move between tenants'`;

/** The second occurrence, in document order, of a key that must be unique. */
function duplicate(table: string, key: string, order: string, path: string, problem: string): string {
  return `select ${path} as path, ${problem} as problem
    from (select *, row_number() over (partition by ${key} order by ${order}) as occurrence from ${table}) t
    where occurrence = 2 order by ${order} limit 1`;
}

export const MISSING_TENANT = `tenant %s is neither in "tenants" nor in the database`;

/** Tenants the staged tags and integrations name that are neither staged nor stored. */
const UNKNOWN_TENANTS = `select path, tenant_id from (
  select 1 as section, position, tenant_id, format('tags[%s].tenant_id', position) as path from import_tag
  union all select 2, position, tenant_id, format('integrations[%s].tenant_id', position) from import_integration
) r
where not exists (select 1 from import_tenant t where t.id = r.tenant_id) and not exists (select 1 from tenant t where t.id = r.tenant_id)
order by section, position limit 1`;

const MISSING_TENANTS = `select path, format('${MISSING_TENANT}', tenant_id) as problem from (${UNKNOWN_TENANTS}) u`;

/** A stored tag value of another tenant; a stored value of the same key with the same text but another id. */
const TAG_VALUES = `select path, problem from (
  select v.tag_position, v.position, 1 as rank, format('tags[%s].values[%s].id', v.tag_position, v.position) as path,
         format(${ANOTHER_TENANT}, s.tenant_id) as problem
  from import_tag_value v join tag_value s on s.id = v.id where s.tenant_id <> v.tenant_id
  union all
  select v.tag_position, v.position, 2, format('tags[%s].values[%s]', v.tag_position, v.position),
         format('value "%s" of key "%s" already exists with id %s', v.value, v.key, s.id)
  from import_tag_value v
  join tag_key k on k.tenant_id = v.tenant_id and k.key = v.key
  join tag_value s on s.tag_key_id = k.id and s.value = v.value
  where s.id <> v.id
) c order by tag_position, position, rank limit 1`;

const INTEGRATIONS = `select format('integrations[%s].id', i.position) as path, format(${ANOTHER_TENANT}, s.tenant_id) as problem
  from import_integration i join integration s on s.id = i.id where s.tenant_id <> i.tenant_id order by i.position limit 1`;

const CHECKS = [
  duplicate('import_tenant', 'id', 'position', `format('tenants[%s]', position)`, `format('duplicate tenant id "%s"', id)`),
  duplicate('import_tag', 'tenant_id, key', 'position', `format('tags[%s]', position)`, `format('duplicate tag key (tenant/key) "%s/%s"', tenant_id, key)`),
  duplicate('import_tag_value', 'id', 'tag_position, position', `format('tags[%s].values[%s]', tag_position, position)`, `format('duplicate tag value id "%s"', id)`),
  duplicate('import_tag_value', 'tag_position, value', 'tag_position, position', `format('tags[%s].values[%s]', tag_position, position)`, `format('duplicate tag value "%s"', value)`),
  duplicate('import_integration', 'id', 'position', `format('integrations[%s]', position)`, `format('duplicate integration id "%s"', id)`),
  duplicate('import_repository', 'integration_position, code_host_id', 'integration_position, position',
    `format('integrations[%s].repositories[%s]', integration_position, position)`, `format('duplicate repository id "%s"', code_host_id)`),
  MISSING_TENANTS,
  TAG_VALUES,
  INTEGRATIONS,
];

/** Whether every tenant the staged tags and integrations name is staged or stored (else one may come later). */
export async function tenancyResolves(client: pg.ClientBase): Promise<boolean> {
  return (await client.query(UNKNOWN_TENANTS)).rowCount === 0;
}

/** Throws the first problem of the staged tenancy, naming its path; passes when there is none. */
export async function checkStagedTenancy(client: pg.ClientBase): Promise<void> {
  for (const sql of CHECKS) await throwFirstProblem(client, sql);
}

/** Runs a check that returns (path, problem) rows and throws the first as an ImportError. */
export async function throwFirstProblem(client: pg.ClientBase, sql: string): Promise<void> {
  const { rows: [problem] } = await client.query<{ path: string; problem: string }>(sql);
  if (problem) throw new ImportError(problem.path, problem.problem);
}
