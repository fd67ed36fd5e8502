import { Migration } from '@mikro-orm/migrations';

// The revision lifecycle (docs/decisions.md#revision-lifecycle): API keys gain the data planes' permission,
// revisions a status message, leases and log lines tables of their own (both go with their revision), and every
// status change of a revision is announced on `revision_transition` (revisions/lifecycle/revision-transitions.ts):
// `<tenant> <deployment> <revision> <from status, or - for a new revision> <to status> <updated_at, epoch ms>`,
// the time cut to the millisecond as every read of updated_at cuts it (rounded, it was a millisecond after the
// revision's `updatedAt` half the time).
// A new revision is announced only when it starts QUEUED: an import of old revisions announces nothing new.

export class Migration20261127125613_lifecycle extends Migration {

  override name = 'Migration20261127125613_lifecycle';

  override up(): void | Promise<void> {
    this.addSql(`create table "revision_log_line" ("id" uuid not null, "tenant_id" uuid not null, "revision_id" uuid not null, "phase" text not null, "line" int not null, "message" text not null, "level" text null, "logged_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "revision_log_line_tenant_id_index" on "revision_log_line" ("tenant_id");`);
    this.addSql(`alter table "revision_log_line" add constraint "revision_log_line_revision_id_phase_line_unique" unique ("revision_id", "phase", "line");`);

    this.addSql(`create table "revision_lease" ("id" uuid not null, "tenant_id" uuid not null, "revision_id" uuid not null, "lease_id" uuid not null, "claimed_by" uuid not null, "expires_at" timestamptz null, "claims" int not null default 1, primary key ("id"));`);
    this.addSql(`create index "revision_lease_tenant_id_index" on "revision_lease" ("tenant_id");`);
    this.addSql(`alter table "revision_lease" add constraint "revision_lease_revision_id_unique" unique ("revision_id");`);
    this.addSql(`create index "revision_lease_expiry_idx" on "revision_lease" ("expires_at") where "expires_at" is not null;`);

    this.addSql(`alter table "api_key" add "may_reconcile" boolean not null default false;`);

    this.addSql(`alter table "revision" add "status_message" text null;`);
    this.addSql(`create index "revision_queued_idx" on "revision" ("tenant_id", "created_at", "id") where "status" = 'QUEUED';`);

    this.addSql(`alter table "revision_log_line" add constraint "revision_log_line_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "revision_log_line" add constraint "revision_log_line_revision_id_foreign" foreign key ("revision_id") references "revision" ("id") on delete cascade;`);
    this.addSql(`alter table "revision_log_line" add constraint "revision_log_line_phase_check" check ("phase" in ('build', 'deploy'));`);

    this.addSql(`alter table "revision_lease" add constraint "revision_lease_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "revision_lease" add constraint "revision_lease_revision_id_foreign" foreign key ("revision_id") references "revision" ("id") on delete cascade;`);

    this.addSql(`create function revision_transition_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('revision_transition', concat_ws(' ', new.tenant_id, new.deployment_id, new.id,
    case when tg_op = 'INSERT' then '-' else old.status end, new.status,
    floor(extract(epoch from new.updated_at) * 1000)::bigint));
  return null;
end $$;`);
    this.addSql(`create trigger "revision_transition_insert" after insert on "revision" for each row when (new.status = 'QUEUED') execute function revision_transition_notify();`);
    this.addSql(`create trigger "revision_transition_update" after update of "status" on "revision" for each row when (old.status is distinct from new.status) execute function revision_transition_notify();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "revision_transition_insert" on "revision";`);
    this.addSql(`drop trigger if exists "revision_transition_update" on "revision";`);
    this.addSql(`drop function if exists revision_transition_notify();`);
    this.addSql(`drop table if exists "revision_log_line" cascade;`);
    this.addSql(`drop table if exists "revision_lease" cascade;`);

    this.addSql(`alter table "api_key" drop column "may_reconcile";`);

    this.addSql(`drop index "revision_queued_idx";`);
    this.addSql(`alter table "revision" drop column "status_message";`);
  }

}
