// The checks of a staged batch of deployments (staging-tables.ts), run before it is written: one statement
// that returns the batch's first offending element in document order, with its path and problem worded as the
// unit-of-work importer worded them; within one deployment, in the order it ran its checks.
//
// A deployment whose tenant or one of whose tag values the database does not hold yet is not an error in the
// first pass: the document may declare them further on, so it is deferred (import-batches.ts) and checked again,
// as the final pass, once the whole document has been read.
//
// Hand-written SQL, for the reasons tenancy-checks.ts gives. A stored row is looked up by a scalar subquery per
// staged row, which the planner always runs as an index lookup: as a join, it chose to scan the whole table for
// every batch once the import had written enough of it (one scan per batch: quadratic).
import { ANOTHER_TENANT, MISSING_TENANT } from './tenancy-checks.ts';

type Pass = 'first' | 'final';

/** The second occurrence of an id: earlier in this batch, or in an earlier one (import_seen_*). */
const duplicates = (pass: Pass) => pass === 'final' ? '' : `
  union all
  select position, 0, 0, format('deployments[%s]', position), format('duplicate deployment id "%s"', id)
  from (select position, id, row_number() over (partition by id order by position) as occurrence from import_deployment) b
  where occurrence > 1 or (select true from import_seen_deployment s where s.id = b.id limit 1)
  union all
  select deployment_position, 1, position, format('deployments[%s].revisions[%s]', deployment_position, position),
         format('duplicate revision id "%s"', id)
  from (select deployment_position, position, id, row_number() over (partition by id order by deployment_position, position) as occurrence
        from import_revision) b
  where occurrence > 1 or (select true from import_seen_revision s where s.id = b.id limit 1)`;

/** Names and links a deployment lists twice. */
const LIST_DUPLICATES = ([
  ['import_secret', 2, 'secrets', 'name', 'duplicate secret name'],
  ['import_secret_reference', 3, 'secret_references', 'name', 'duplicate secret reference name'],
  ['import_tag_link', 4, 'tag_value_ids', 'tag_value_id', 'duplicate tag value id'],
] as const).map(([table, rank, list, key, problem]) => `
  union all
  select deployment_position, ${rank}, position, format('deployments[%s].${list}[%s]', deployment_position, position), format('${problem} "%s"', ${key})
  from (select *, row_number() over (partition by deployment_position, ${key} order by position) as occurrence from ${table}) l
  where occurrence = 2`).join('');

/** In the first pass a tenant or tag value that is not stored defers the deployment; in the final pass it is an error. */
const unknownReferences = (pass: Pass) => pass === 'first' ? '' : `
  union all
  select d.position, 5, 0, format('deployments[%s].tenant_id', d.position), format('${MISSING_TENANT}', d.tenant_id)
  from import_deployment d where (select true from tenant t where t.id = d.tenant_id) is null`;

/** The stored tag value's tenant: another one is an error; none is one in the final pass only. */
const TAG_VALUE_MISSING = (pass: Pass) => pass === 'first' ? 'l.stored <> l.tenant_id' : 'l.stored is distinct from l.tenant_id';

/** The first problem of the staged batch, as (path, problem), or no row. */
export const batchProblems = (pass: Pass) => `select path, problem from (
  select d.position, 6 as rank, 0 as sub, format('deployments[%s].id', d.position) as path, format(${ANOTHER_TENANT}, d.stored) as problem
  from (select *, (select s.tenant_id from deployment s where s.id = d.id) as stored from import_deployment d) d where d.stored <> d.tenant_id
  union all
  select l.deployment_position, 7, l.position, format('deployments[%s].tag_value_ids[%s]', l.deployment_position, l.position),
         format('tag value %s does not exist in tenant %s', l.tag_value_id, l.tenant_id)
  from (select *, (select s.tenant_id from tag_value s where s.id = l.tag_value_id) as stored from import_tag_link l) l
  where ${TAG_VALUE_MISSING(pass)}
  union all
  select d.position, 8, 0, format('deployments[%s].source_config.integration_id', d.position),
         format('integration %s belongs to another tenant', d.integration_id)
  from (select *, (select i.tenant_id from integration i where i.id = d.integration_id) as owner from import_deployment d) d
  where d.owner <> d.tenant_id
  union all
  select r.deployment_position, 9, r.position, format('deployments[%s].revisions[%s].id', r.deployment_position, r.position),
         format('revision already belongs to deployment %s', r.owner)
  from (select *, (select s.deployment_id from revision s where s.id = r.id) as owner from import_revision r) r
  where r.owner <> r.deployment_id
  ${duplicates(pass)}${LIST_DUPLICATES}${unknownReferences(pass)}
) p order by position, rank, sub limit 1`;

/** First pass: the batch's deployments whose tenant or a tag value is not stored yet. */
export const UNRESOLVED_DEPLOYMENTS = `select d.id from import_deployment d
  where (select true from tenant t where t.id = d.tenant_id) is null
  union
  select l.deployment_id from import_tag_link l where (select true from tag_value s where s.id = l.tag_value_id) is null`;

/**
 * Once the whole document is read: source_config.integration_id of every deployment against the integrations as
 * stored now (the document's own included), as one declared after a deployment may name another tenant.
 */
export const INTEGRATION_REFERENCES = `select format('deployments[%s].source_config.integration_id', d.position) as path,
    format('integration %s belongs to another tenant', d.integration_id) as problem
  from import_seen_deployment d join integration i on i.id = d.integration_id
  where i.tenant_id <> d.tenant_id order by d.position limit 1`;
