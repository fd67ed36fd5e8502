import { Migration } from '@mikro-orm/migrations';

// Writes (docs/decisions.md#writes): API keys gain a write permission (keys issued before stay read-only), a
// deployment a version that is its ETag, and requests under an Idempotency-Key a record. The version is bumped
// by a trigger, so that every change of the row (a write, an import, a revision report) changes the ETag,
// whoever makes it; an UPDATE that changes nothing leaves it alone.

export class Migration20261127091851_writes extends Migration {

  override name = 'Migration20261127091851_writes';

  override up(): void | Promise<void> {
    this.addSql(`create table "idempotency_record" ("id" uuid not null, "tenant_id" uuid not null, "key" text not null, "fingerprint" text not null, "claimed_at" timestamptz not null, "committed" boolean not null default false, "answer" jsonb null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "idempotency_record_tenant_id_index" on "idempotency_record" ("tenant_id");`);
    this.addSql(`create index "idempotency_record_created_at_index" on "idempotency_record" ("created_at");`);
    this.addSql(`alter table "idempotency_record" add constraint "idempotency_record_tenant_id_key_unique" unique ("tenant_id", "key");`);

    this.addSql(`alter table "api_key" add "may_write" boolean not null default false;`);

    this.addSql(`alter table "deployment" add "version" int not null default 1;`);

    this.addSql(`alter table "idempotency_record" add constraint "idempotency_record_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`create function deployment_version_bump() returns trigger language plpgsql as $$
begin
  if new is distinct from old then
    new.version := old.version + 1;
  end if;
  return new;
end $$;`);
    this.addSql(`create trigger "deployment_version_bump" before update on "deployment" for each row execute function deployment_version_bump();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "deployment_version_bump" on "deployment";`);
    this.addSql(`drop function if exists deployment_version_bump();`);

    this.addSql(`drop table if exists "idempotency_record" cascade;`);

    this.addSql(`alter table "api_key" drop column "may_write";`);

    this.addSql(`alter table "deployment" drop column "version";`);
  }

}
