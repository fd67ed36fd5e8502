import { Migration } from '@mikro-orm/migrations';

// Tenants' data versions (docs/decisions.md#conditional-requests, modules/tenancy/data-version/): every
// statement that changes a row a tenant's answers show notes the tenant in its transaction (statement triggers
// reading the changed rows), and at the commit one deferred trigger advances the version of each tenant noted,
// in tenant order (two transactions of several tenants never wait on each other crosswise), from one sequence.
// Revision log lines move a version of their own (log_version): only GraphQL's logs show them. Only status
// changes and data move either: a lease's renewal (revision_lease) and idempotency records do not.

/** The tables whose rows answers show, with the column that names their tenant. */
const TENANT_TABLES: Array<[table: string, tenantColumn: string]> = [
  ['tenant', 'id'], ['tag_key', 'tenant_id'], ['tag_value', 'tenant_id'], ['integration', 'tenant_id'],
  ['source_repository', 'tenant_id'], ['deployment', 'tenant_id'], ['secret', 'tenant_id'], ['secret_reference', 'tenant_id'],
  ['revision', 'tenant_id'],
];

const EVENTS = [['inserted', 'insert', 'new'], ['updated', 'update', 'new'], ['deleted', 'delete', 'old']] as const;

export class Migration20261127152652_data_versions extends Migration {

  override name = 'Migration20261127152652_data_versions';

  override up(): void | Promise<void> {
    // Unlogged: its rows live for one transaction, and a replica never needs them.
    this.addSql(`create unlogged table "tenant_data_change" ("id" bigserial primary key);`);

    this.addSql(`create table "tenant_data_version" ("tenant_id" uuid not null, "version" bigint not null, "log_version" bigint not null default '0', primary key ("tenant_id"));`);
    this.addSql(`alter table "tenant_data_version" add constraint "tenant_data_version_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on update cascade on delete cascade;`);
    this.addSql(`create sequence "tenant_data_version_seq";`);
    this.addSql(`insert into "tenant_data_version" ("tenant_id", "version") select "id", nextval('tenant_data_version_seq') from "tenant" order by "id";`);

    // The tenants changed so far in the transaction are kept in transaction-local settings, one for data and one
    // for log lines; the first change of either inserts the row whose deferred trigger runs at the commit.
    this.addSql(`create function note_tenant_changes(setting text, changed uuid[]) returns void language plpgsql as $$
declare
  noted text := current_setting(setting, true);
begin
  if changed is null or cardinality(changed) = 0 then return; end if;
  if coalesce(current_setting('gateway.changed_tenants', true), '') = '' and coalesce(current_setting('gateway.changed_tenant_logs', true), '') = '' then
    insert into tenant_data_change default values;
  end if;
  if noted is null or noted = '' then
    perform set_config(setting, array_to_string(changed, ','), true);
  else
    perform set_config(setting, (select string_agg(distinct tenant, ',') from unnest(string_to_array(noted, ',') || changed::text[]) tenant), true);
  end if;
end $$;`);
    // Its argument: the setting the changed rows' tenants go to (data, or log lines).
    this.addSql(`create function note_changed_rows() returns trigger language plpgsql as $$
begin
  perform note_tenant_changes(tg_argv[0], (select array_agg(distinct tenant_id) from changed_rows));
  return null;
end $$;`);
    this.addSql(`create function note_changed_tenant_rows() returns trigger language plpgsql as $$
begin
  perform note_tenant_changes('gateway.changed_tenants', (select array_agg(distinct id) from changed_rows));
  return null;
end $$;`);
    // A deployment's tags name no tenant: their tag values (or deployments) do.
    this.addSql(`create function note_changed_deployment_tags() returns trigger language plpgsql as $$
begin
  perform note_tenant_changes('gateway.changed_tenants', (select array_agg(distinct tag_value.tenant_id) from changed_rows join tag_value on tag_value.id = changed_rows.tag_value_id));
  perform note_tenant_changes('gateway.changed_tenants', (select array_agg(distinct deployment.tenant_id) from changed_rows join deployment on deployment.id = changed_rows.deployment_id));
  return null;
end $$;`);
    this.addSql(`create function advance_tenant_data_versions() returns trigger language plpgsql as $$
declare
  data uuid[] := string_to_array(nullif(current_setting('gateway.changed_tenants', true), ''), ',')::uuid[];
  logs uuid[] := string_to_array(nullif(current_setting('gateway.changed_tenant_logs', true), ''), ',')::uuid[];
begin
  delete from tenant_data_change where id = new.id;
  perform set_config('gateway.changed_tenants', '', true);
  perform set_config('gateway.changed_tenant_logs', '', true);
  data := coalesce(data, '{}');
  logs := coalesce(logs, '{}');
  if cardinality(data) = 0 and cardinality(logs) = 0 then return null; end if;
  insert into tenant_data_version as current (tenant_id, version, log_version)
    select tenant.id,
      case when tenant.id = any(data) then nextval('tenant_data_version_seq') else 0 end,
      case when tenant.id = any(logs) then nextval('tenant_data_version_seq') else 0 end
    from tenant where tenant.id = any(data || logs) order by tenant.id
    on conflict (tenant_id) do update set
      version = case when excluded.tenant_id = any(data) then excluded.version else current.version end,
      log_version = case when excluded.tenant_id = any(logs) then excluded.log_version else current.log_version end;
  return null;
end $$;`);
    this.addSql(`create constraint trigger "advance_tenant_data_versions" after insert on "tenant_data_change" deferrable initially deferred for each row execute function advance_tenant_data_versions();`);

    for (const [table, column] of TENANT_TABLES) {
      const fn = column === 'id' ? 'note_changed_tenant_rows()' : "note_changed_rows('gateway.changed_tenants')";
      for (const [suffix, event, rows] of EVENTS) {
        this.addSql(`create trigger "${table}_data_${suffix}" after ${event} on "${table}" referencing ${rows} table as changed_rows for each statement execute function ${fn};`);
      }
    }
    for (const [suffix, event, rows] of EVENTS) {
      this.addSql(`create trigger "revision_log_line_data_${suffix}" after ${event} on "revision_log_line" referencing ${rows} table as changed_rows for each statement execute function note_changed_rows('gateway.changed_tenant_logs');`);
    }
    for (const [suffix, event, rows] of EVENTS) {
      this.addSql(`create trigger "deployment_tag_value_data_${suffix}" after ${event} on "deployment_tag_value" referencing ${rows} table as changed_rows for each statement execute function note_changed_deployment_tags();`);
    }
  }

  override down(): void | Promise<void> {
    for (const [table] of [...TENANT_TABLES, ['revision_log_line'], ['deployment_tag_value']]) {
      for (const [suffix] of EVENTS) this.addSql(`drop trigger if exists "${table}_data_${suffix}" on "${table}";`);
    }
    this.addSql(`drop trigger if exists "advance_tenant_data_versions" on "tenant_data_change";`);
    this.addSql(`drop function if exists advance_tenant_data_versions();`);
    this.addSql(`drop function if exists note_changed_deployment_tags();`);
    this.addSql(`drop function if exists note_changed_tenant_rows();`);
    this.addSql(`drop function if exists note_changed_rows();`);
    this.addSql(`drop function if exists note_tenant_changes(text, uuid[]);`);
    this.addSql(`drop table if exists "tenant_data_change" cascade;`);
    this.addSql(`drop table if exists "tenant_data_version" cascade;`);
    this.addSql(`drop sequence if exists "tenant_data_version_seq";`);
  }

}
