import { Migration } from '@mikro-orm/migrations';

export class Migration20261123074949_revision_record_installation_id extends Migration {

  override name = 'Migration20261123074949_revision_record_installation_id';

  override up(): void | Promise<void> {
    this.addSql(`alter table "integration" add "installation_id" bigint null;`);

    this.addSql(`drop index "revision_deployment_id_index";`);
    // Generated as `not null` columns; revisions stored before them get the defaults an import of the older
    // format gives (docs/decisions.md#revisions): their deployment's source, updated_at = created_at.
    this.addSql(`alter table "revision" add "source" text null, add "source_revision_config" jsonb null, add "remote_reconciled" boolean not null default false, add "updated_at" timestamptz null;`);
    this.addSql(`update "revision" as r set "source" = d."source", "updated_at" = r."created_at" from "deployment" as d where d."id" = r."deployment_id";`);
    this.addSql(`alter table "revision" alter column "source" set not null, alter column "updated_at" set not null;`);
    this.addSql(`create index "revision_deployment_id_created_at_id_index" on "revision" ("deployment_id", "created_at", "id");`);
    this.addSql(`alter table "revision" add constraint "revision_source_check" check ("source" in ('github', 'external_docker', 'internal_docker', 'internal_source'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "integration" drop column "installation_id";`);

    this.addSql(`drop index "revision_deployment_id_created_at_id_index";`);
    this.addSql(`alter table "revision" drop constraint "revision_source_check";`);
    this.addSql(`alter table "revision" drop column "source", drop column "source_revision_config", drop column "remote_reconciled", drop column "updated_at";`);
    this.addSql(`create index "revision_deployment_id_index" on "revision" ("deployment_id");`);
  }

}
