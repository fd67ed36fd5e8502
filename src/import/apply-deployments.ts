// Writes the staged deployments with the lists they own (secrets, secret references, tag links) and their
// revisions, after apply-tenancy.ts. Only what differs is written; the owned lists of a deployment become what
// the document lists; revisions are added or updated, never removed. A deployment counts once as updated
// whether its columns, its tag links or both changed (the pivot rows are not counted on their own).
//
// Rows of new deployments cannot exist yet, so they are inserted without looking for them (a new deployment's
// secrets, say, are not searched for among every stored secret); only rows of existing deployments are matched.
//
// Hand-written SQL, for the reasons apply-tenancy.ts gives; the same tenant conditions. Stored rows are reached
// through `= any(array(…))` of the batch's ids or a scalar subquery per staged row, which the planner runs as
// index lookups (batch-checks.ts says why joins were not enough).
import type pg from 'pg';
import { addCounts, countChanges, noChanges, type ChangeCounts } from './apply-tenancy.ts';

const DEPLOYMENT_COLUMNS = [
  'name', 'status', 'source', 'deployment_type', 'remote_reconciled', 'image_version', 'source_config', 'resource_spec',
  'source_revision_config', 'latest_revision_id', 'active_revision_id', 'created_at', 'updated_at',
];
const list = (columns: string[], alias: string) => columns.map((c) => `${alias}.${c}`).join(', ');

/** Rows of the batch's existing deployments only. */
const OF_EXISTING = 'join import_existing_deployment e on e.id = s.deployment_id';
/** The stored rows of the batch's existing deployments, as an index condition. */
const EXISTING_IDS = 'any(array(select id from import_existing_deployment))';
/** Rows of the batch's new deployments only. */
const OF_NEW = 'where not exists (select 1 from import_existing_deployment e where e.id = s.deployment_id)';

/** Which staged deployments exist: their lists may lose rows, and their new rows must be matched. */
const FIND_EXISTING = `insert into import_existing_deployment (id)
  select s.id from import_deployment s where (select true from deployment d where d.id = s.id)`;

/** Columns that differ; the ids of the deployments go to import_changed_deployment for the count. */
const UPDATE_DEPLOYMENTS = `with changed as (
    update deployment d set ${DEPLOYMENT_COLUMNS.map((c) => `${c} = s.${c}`).join(', ')}
    from import_deployment s
    where d.id = ${EXISTING_IDS} and d.id = s.id and d.tenant_id = s.tenant_id and (${list(DEPLOYMENT_COLUMNS, 'd')}) is distinct from (${list(DEPLOYMENT_COLUMNS, 's')})
    returning d.id
  ) insert into import_changed_deployment (id) select id from changed`;

const INSERT_DEPLOYMENTS = `insert into deployment (id, tenant_id, ${DEPLOYMENT_COLUMNS.join(', ')})
  select s.id, s.tenant_id, ${list(DEPLOYMENT_COLUMNS, 's')} from import_deployment s
  where not exists (select 1 from import_existing_deployment e where e.id = s.id)`;

const INSERT_NEW_TAG_LINKS = `insert into deployment_tag_value (deployment_id, tag_value_id)
  select s.deployment_id, s.tag_value_id from import_tag_link s ${OF_NEW}`;

/** An existing deployment's tag links become what the document lists; if they change, it counts as changed. */
const REPLACE_TAG_LINKS = `with removed as (
    delete from deployment_tag_value l
    where l.deployment_id = ${EXISTING_IDS}
      and not exists (select 1 from import_tag_link s where s.deployment_id = l.deployment_id and s.tag_value_id = l.tag_value_id)
    returning l.deployment_id
  ), added as (
    insert into deployment_tag_value (deployment_id, tag_value_id)
    select s.deployment_id, s.tag_value_id from import_tag_link s ${OF_EXISTING}
    where (select true from deployment_tag_value l where l.deployment_id = s.deployment_id and l.tag_value_id = s.tag_value_id) is null
    returning deployment_id
  ) insert into import_changed_deployment (id) select deployment_id from removed union select deployment_id from added`;

/** The rows a deployment owns, by name: secrets and secret references. */
function ownedList(table: string, staged: string, columns: string[], changed: string, set: string) {
  const values = `gen_random_uuid(), s.tenant_id, s.deployment_id, s.name, ${list(columns, 's')}`;
  const into = `insert into ${table} (id, tenant_id, deployment_id, name, ${columns.join(', ')})`;
  return {
    ofNew: { created: [`${into} select ${values} from ${staged} s ${OF_NEW}`] },
    ofExisting: {
      deleted: [`delete from ${table} x
        where x.deployment_id = ${EXISTING_IDS} and not exists (select 1 from ${staged} s where s.deployment_id = x.deployment_id and s.name = x.name)`],
      updated: [`update ${table} x set ${set} from ${staged} s
        where x.deployment_id = ${EXISTING_IDS} and x.deployment_id = s.deployment_id and x.name = s.name and x.tenant_id = s.tenant_id and (${changed})`],
      created: [`${into} select ${values} from ${staged} s ${OF_EXISTING}
        where (select true from ${table} x where x.deployment_id = s.deployment_id and x.name = s.name) is null`],
    },
  };
}

/** A null staged ciphertext keeps the stored one (the same value under the current key, staging-writer.ts). */
const SECRETS = ownedList('secret', 'import_secret', ['value_ciphertext', 'key_fingerprint', 'position'],
  's.value_ciphertext is not null or x.position <> s.position',
  `value_ciphertext = coalesce(s.value_ciphertext, x.value_ciphertext), key_fingerprint = coalesce(s.key_fingerprint, x.key_fingerprint), position = s.position`);

const SECRET_REFERENCES = ownedList('secret_reference', 'import_secret_reference', ['secret_name', 'secret_key', 'position'],
  '(x.secret_name, x.secret_key, x.position) is distinct from (s.secret_name, s.secret_key, s.position)',
  'secret_name = s.secret_name, secret_key = s.secret_key, position = s.position');

const REVISION_COLUMNS = ['status', 'source', 'source_revision_config', 'remote_reconciled', 'created_at', 'updated_at'];
const INSERT_REVISIONS = `insert into revision (id, tenant_id, deployment_id, ${REVISION_COLUMNS.join(', ')})
  select s.id, s.tenant_id, s.deployment_id, ${list(REVISION_COLUMNS, 's')} from import_revision s`;

/** Matched by id. A revision id stored under another deployment was refused by the checks, so a new deployment's revisions are new. */
const REVISIONS = {
  ofNew: { created: [`${INSERT_REVISIONS} ${OF_NEW}`] },
  ofExisting: {
    updated: [`update revision r set ${REVISION_COLUMNS.map((c) => `${c} = s.${c}`).join(', ')}
      from import_revision s ${OF_EXISTING}
      where r.deployment_id = ${EXISTING_IDS} and r.id = s.id and r.deployment_id = s.deployment_id and r.tenant_id = s.tenant_id
        and (${list(REVISION_COLUMNS, 'r')}) is distinct from (${list(REVISION_COLUMNS, 's')})`],
    created: [`${INSERT_REVISIONS} ${OF_EXISTING} where (select true from revision r where r.id = s.id) is null`],
  },
};

export async function applyDeployments(client: pg.ClientBase, now: Date): Promise<ChangeCounts> {
  const total = noChanges();
  const existing = (await client.query(FIND_EXISTING)).rowCount ?? 0;
  total.created += (await client.query(INSERT_DEPLOYMENTS)).rowCount ?? 0;
  await client.query(INSERT_NEW_TAG_LINKS);
  for (const { ofNew } of [SECRETS, SECRET_REFERENCES, REVISIONS]) addCounts(total, await countChanges(client, now, ofNew));
  // A first import into an empty database (every batch of the benchmark's) skips the statements below.
  if (existing === 0) return total;
  await client.query(UPDATE_DEPLOYMENTS);
  await client.query(REPLACE_TAG_LINKS);
  const { rows: [changed] } = await client.query<{ count: number }>(`select count(distinct id)::int as count from import_changed_deployment`);
  total.updated += changed!.count;
  for (const { ofExisting } of [SECRETS, SECRET_REFERENCES, REVISIONS]) addCounts(total, await countChanges(client, now, ofExisting));
  return total;
}
