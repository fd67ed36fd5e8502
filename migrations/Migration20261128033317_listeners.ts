import { Migration } from '@mikro-orm/migrations';

// Listeners (docs/decisions.md#listeners): their table, with the data-version triggers every table answers show
// has (Migration20261127152652_data_versions), API keys bound to one, and the data planes' wake-up: each time a
// revision may have become claimable (a new QUEUED revision, one queued again, or the end of one in progress,
// which lets the next of its deployment go; not its steps in between), `listener_work` announces `<tenant id> <listener id, or ->`: the
// listener its deployment names, or `-` for a deployment on no registered listener of the tenant
// (modules/listeners/listener-work.ts). NOTIFY is delivered at the commit, to every gateway listening.

const EVENTS = [['inserted', 'insert', 'new'], ['updated', 'update', 'new'], ['deleted', 'delete', 'old']] as const;
const IN_PROGRESS = `('AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING')`;

export class Migration20261128033317_listeners extends Migration {

  override name = 'Migration20261128033317_listeners';

  override up(): void | Promise<void> {
    this.addSql(`create table "listener" ("id" uuid not null, "tenant_id" uuid not null, "compute_type" text not null, "compute_id" text not null, "k8s_namespaces" jsonb null, "version" text null, "last_contact_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "listener_tenant_id_index" on "listener" ("tenant_id");`);
    this.addSql(`create index "listener_tenant_id_created_at_id_index" on "listener" ("tenant_id", "created_at", "id");`);
    this.addSql(`alter table "listener" add constraint "listener_tenant_id_compute_id_unique" unique ("tenant_id", "compute_id");`);

    this.addSql(`alter table "api_key" add "listener_id" uuid null;`);

    this.addSql(`alter table "listener" add constraint "listener_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "listener" add constraint "listener_compute_type_check" check ("compute_type" in ('k8s'));`);

    for (const [suffix, event, rows] of EVENTS) {
      this.addSql(`create trigger "listener_data_${suffix}" after ${event} on "listener" referencing ${rows} table as changed_rows for each statement execute function note_changed_rows('gateway.changed_tenants');`);
    }

    this.addSql(`create function listener_work_notify() returns trigger language plpgsql as $$
declare
  listener_id uuid;
begin
  select l.id into listener_id from deployment d join listener l on l.tenant_id = d.tenant_id and l.id::text = lower(d.source_config->>'listener_id')
  where d.id = new.deployment_id;
  perform pg_notify('listener_work', concat_ws(' ', new.tenant_id, coalesce(listener_id::text, '-')));
  return null;
end $$;`);
    this.addSql(`create trigger "revision_listener_work_insert" after insert on "revision" for each row when (new.status = 'QUEUED') execute function listener_work_notify();`);
    this.addSql(`create trigger "revision_listener_work_update" after update of "status" on "revision" for each row when (old.status is distinct from new.status and (new.status = 'QUEUED' or (old.status in ${IN_PROGRESS} and new.status not in ${IN_PROGRESS}))) execute function listener_work_notify();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "revision_listener_work_insert" on "revision";`);
    this.addSql(`drop trigger if exists "revision_listener_work_update" on "revision";`);
    this.addSql(`drop function if exists listener_work_notify();`);
    this.addSql(`drop table if exists "listener" cascade;`);

    this.addSql(`alter table "api_key" drop column "listener_id";`);
  }

}
