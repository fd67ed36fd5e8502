// The checks that need the whole document, or the database, run on the staging tables before anything is
// written: each is one statement that returns the first offending element in document order, with its path
// and problem worded as before. They run in the order the unit-of-work importer ran them (the document's own
// consistency, then tenants, tags, integrations, deployments, integration references, revisions), so a
// document with one mistake fails the same way.
//
// Hand-written SQL: window functions, anti-joins and UNIONs over temporary tables are beyond what MikroORM's
// QueryBuilder builds. The import works across tenants by design (it is an operator tool), so these read
// the real tables without a tenant filter; what they look for is precisely a row of another tenant.
import type pg from 'pg';
import { ImportError } from './import-error.ts';

const ANOTHER_TENANT = `'already exists in another tenant (%s); ids cannot move between tenants'`;

/** The second occurrence, in document order, of a key that must be unique. */
function duplicate(table: string, key: string, order: string, path: string, problem: string): string {
  return `select ${path} as path, ${problem} as problem
    from (select *, row_number() over (partition by ${key} order by ${order}) as occurrence from ${table}) t
    where occurrence = 2 order by ${order} limit 1`;
}

/** Duplicates inside each deployment's lists: secrets, then secret references, then tag links (per deployment). */
const DUPLICATES_IN_DEPLOYMENTS = `select path, problem from (
  select deployment_position, 1 as list, position, format('deployments[%s].secrets[%s]', deployment_position, position) as path,
         format('duplicate secret name "%s"', name) as problem,
         row_number() over (partition by deployment_position, name order by position) as occurrence from import_secret
  union all
  select deployment_position, 2, position, format('deployments[%s].secret_references[%s]', deployment_position, position),
         format('duplicate secret reference name "%s"', name),
         row_number() over (partition by deployment_position, name order by position) from import_secret_reference
  union all
  select deployment_position, 3, position, format('deployments[%s].tag_value_ids[%s]', deployment_position, position),
         format('duplicate tag value id "%s"', tag_value_id),
         row_number() over (partition by deployment_position, tag_value_id order by position) from import_tag_link
) d where occurrence = 2 order by deployment_position, list, position limit 1`;

const MISSING_TENANTS = `select path, format('tenant %s is neither in "tenants" nor in the database', tenant_id) as problem from (
  select 1 as section, position, tenant_id, format('tags[%s].tenant_id', position) as path from import_tag
  union all select 2, position, tenant_id, format('integrations[%s].tenant_id', position) from import_integration
  union all select 3, position, tenant_id, format('deployments[%s].tenant_id', position) from import_deployment
) r
where not exists (select 1 from import_tenant t where t.id = r.tenant_id) and not exists (select 1 from tenant t where t.id = r.tenant_id)
order by section, position limit 1`;

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

/**
 * Per deployment: its id in another tenant, then each tag value that is not of its tenant. A tag value the
 * document declares counts with the document's tenant, otherwise with the stored one.
 */
const DEPLOYMENTS = `select path, problem from (
  select d.position, 0 as rank, format('deployments[%s].id', d.position) as path, format(${ANOTHER_TENANT}, s.tenant_id) as problem
  from import_deployment d join deployment s on s.id = d.id where s.tenant_id <> d.tenant_id
  union all
  select l.deployment_position, 1 + l.position, format('deployments[%s].tag_value_ids[%s]', l.deployment_position, l.position),
         format('tag value %s does not exist in tenant %s', l.tag_value_id, l.tenant_id)
  from import_tag_link l
  where not exists (select 1 from import_tag_value v where v.id = l.tag_value_id and v.tenant_id = l.tenant_id)
    and (exists (select 1 from import_tag_value v where v.id = l.tag_value_id)
         or not exists (select 1 from tag_value s where s.id = l.tag_value_id and s.tenant_id = l.tenant_id))
) c order by position, rank limit 1`;

/** source_config.integration_id may name an unknown integration, but never another tenant's (the document's own first). */
const INTEGRATION_REFERENCES = `select format('deployments[%s].source_config.integration_id', d.position) as path,
    format('integration %s belongs to another tenant', d.integration_id) as problem
  from import_deployment d
  left join import_integration i on i.id = d.integration_id
  left join integration s on s.id = d.integration_id
  where d.integration_id is not null and coalesce(i.tenant_id, s.tenant_id) <> d.tenant_id
  order by d.position limit 1`;

const REVISIONS = `select format('deployments[%s].revisions[%s].id', r.deployment_position, r.position) as path,
    format('revision already belongs to deployment %s', s.deployment_id) as problem
  from import_revision r join revision s on s.id = r.id where s.deployment_id <> r.deployment_id
  order by r.deployment_position, r.position limit 1`;

const CHECKS = [
  duplicate('import_tenant', 'id', 'position', `format('tenants[%s]', position)`, `format('duplicate tenant id "%s"', id)`),
  duplicate('import_tag', 'tenant_id, key', 'position', `format('tags[%s]', position)`, `format('duplicate tag key (tenant/key) "%s/%s"', tenant_id, key)`),
  duplicate('import_tag_value', 'id', 'tag_position, position', `format('tags[%s].values[%s]', tag_position, position)`, `format('duplicate tag value id "%s"', id)`),
  duplicate('import_tag_value', 'tag_position, value', 'tag_position, position', `format('tags[%s].values[%s]', tag_position, position)`, `format('duplicate tag value "%s"', value)`),
  duplicate('import_integration', 'id', 'position', `format('integrations[%s]', position)`, `format('duplicate integration id "%s"', id)`),
  duplicate('import_repository', 'integration_position, code_host_id', 'integration_position, position',
    `format('integrations[%s].repositories[%s]', integration_position, position)`, `format('duplicate repository id "%s"', code_host_id)`),
  duplicate('import_deployment', 'id', 'position', `format('deployments[%s]', position)`, `format('duplicate deployment id "%s"', id)`),
  duplicate('import_revision', 'id', 'deployment_position, position', `format('deployments[%s].revisions[%s]', deployment_position, position)`,
    `format('duplicate revision id "%s"', id)`),
  DUPLICATES_IN_DEPLOYMENTS,
  MISSING_TENANTS,
  TAG_VALUES,
  INTEGRATIONS,
  DEPLOYMENTS,
  INTEGRATION_REFERENCES,
  REVISIONS,
];

/** Throws the first problem of the staged document, naming its path; passes when there is none. */
export async function checkStagedDocument(client: pg.ClientBase): Promise<void> {
  for (const sql of CHECKS) {
    const { rows: [problem] } = await client.query<{ path: string; problem: string }>(sql);
    if (problem) throw new ImportError(problem.path, problem.problem);
  }
}
