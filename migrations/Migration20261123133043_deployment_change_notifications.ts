import { Migration } from '@mikro-orm/migrations';

// Live updates (docs/architecture.md#the-path-of-a-change): every change to a deployment, or to a revision,
// secret, secret reference or tag link of one, is announced with NOTIFY on `deployment_changed`, carrying
// ids only: `<tenant id> <c|u|d> <deployment id> <deployment id> …` (created, updated, deleted; a change to
// a part of a deployment is an update of the deployment). The triggers are statement-level, reading the
// statement's transition tables, so a statement writing 100,000 rows sends one notification per tenant and
// 200 deployments (a payload stays under NOTIFY's 8,000 bytes), not one per row. An UPDATE announces only the
// rows it really changed: re-importing the same document announces nothing. The service's payload parser is
// src/modules/deployments/live/change-notifications.ts. Tag keys and values themselves (renames) are not
// deployment changes and are not announced (docs/decisions.md#live-updates).

/** Tables whose rows belong to one deployment (`deployment_id`) and carry its tenant (`tenant_id`) and an `id`. */
const PARTS = ['revision', 'secret', 'secret_reference'];

const triggers = (table: string, fn: string) => [
  `create trigger "${table}_changes_insert" after insert on "${table}" referencing new table as new_rows for each statement execute function ${fn}();`,
  `create trigger "${table}_changes_update" after update on "${table}" referencing old table as old_rows new table as new_rows for each statement execute function ${fn}();`,
  `create trigger "${table}_changes_delete" after delete on "${table}" referencing old table as old_rows for each statement execute function ${fn}();`,
];

const dropTriggers = (table: string) =>
  ['insert', 'update', 'delete'].map((op) => `drop trigger if exists "${table}_changes_${op}" on "${table}";`);

export class Migration20261123133043_deployment_change_notifications extends Migration {

  override name = 'Migration20261123133043_deployment_change_notifications';

  override up(): void | Promise<void> {
    // PERFORM (not a SQL-language function) so that every group is evaluated: a SQL function would stop at
    // the first row of its last statement. Each deployment once (a statement may write many of its revisions),
    // in groups of 200 in no particular order (hashed, not sorted).
    this.addSql(`create function notify_deployment_changes(kind text, tenant_ids uuid[], deployment_ids uuid[]) returns void language plpgsql as $$
begin
  perform pg_notify('deployment_changed', tenant_id::text || ' ' || kind || ' ' || string_agg(deployment_id::text, ' '))
  from (
    select tenant_id, deployment_id, (row_number() over (partition by tenant_id) - 1) / 200 as chunk
    from unnest(tenant_ids, deployment_ids) as changed (tenant_id, deployment_id)
    group by tenant_id, deployment_id
  ) as numbered
  group by tenant_id, chunk;
end $$;`);

    this.addSql(`create function deployment_changes_notify() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform notify_deployment_changes('c', array_agg(tenant_id), array_agg(id)) from new_rows;
  elsif tg_op = 'UPDATE' then
    perform notify_deployment_changes('u', array_agg(n.tenant_id), array_agg(n.id))
    from new_rows as n join old_rows as o on o.id = n.id where o is distinct from n;
  else
    perform notify_deployment_changes('d', array_agg(tenant_id), array_agg(id)) from old_rows;
  end if;
  return null;
end $$;`);

    // A row that moves to another deployment is an update of both.
    this.addSql(`create function deployment_part_changes_notify() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform notify_deployment_changes('u', array_agg(tenant_id), array_agg(deployment_id)) from new_rows;
  elsif tg_op = 'UPDATE' then
    perform notify_deployment_changes('u', array_agg(tenant_id), array_agg(deployment_id)) from (
      select n.tenant_id, n.deployment_id from new_rows as n join old_rows as o on o.id = n.id where o is distinct from n
      union all
      select o.tenant_id, o.deployment_id from new_rows as n join old_rows as o on o.id = n.id where o.deployment_id is distinct from n.deployment_id
    ) as changed;
  else
    perform notify_deployment_changes('u', array_agg(tenant_id), array_agg(deployment_id)) from old_rows;
  end if;
  return null;
end $$;`);

    // The pivot has no tenant: it comes from the deployment, which a cascade from its deletion no longer finds
    // (the deletion is announced by the deployment's own trigger).
    this.addSql(`create function deployment_tag_changes_notify() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform notify_deployment_changes('u', array_agg(d.tenant_id), array_agg(d.id)) from deployment as d where d.id in (select deployment_id from new_rows);
  elsif tg_op = 'UPDATE' then
    perform notify_deployment_changes('u', array_agg(d.tenant_id), array_agg(d.id)) from deployment as d
    where d.id in (select deployment_id from new_rows union select deployment_id from old_rows);
  else
    perform notify_deployment_changes('u', array_agg(d.tenant_id), array_agg(d.id)) from deployment as d where d.id in (select deployment_id from old_rows);
  end if;
  return null;
end $$;`);

    for (const sql of triggers('deployment', 'deployment_changes_notify')) this.addSql(sql);
    for (const table of PARTS) for (const sql of triggers(table, 'deployment_part_changes_notify')) this.addSql(sql);
    for (const sql of triggers('deployment_tag_value', 'deployment_tag_changes_notify')) this.addSql(sql);
  }

  override down(): void | Promise<void> {
    for (const table of ['deployment', ...PARTS, 'deployment_tag_value']) for (const sql of dropTriggers(table)) this.addSql(sql);
    this.addSql(`drop function if exists deployment_tag_changes_notify();`);
    this.addSql(`drop function if exists deployment_part_changes_notify();`);
    this.addSql(`drop function if exists deployment_changes_notify();`);
    this.addSql(`drop function if exists notify_deployment_changes(text, uuid[], uuid[]);`);
  }

}
