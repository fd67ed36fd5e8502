import { Migration } from '@mikro-orm/migrations';

// The object paths POST /v2/deployments/{deployment_id}/upload-url issues (docs/decisions.md#source-archives):
// a PATCH's source_tarball_path must be one of its deployment's. No foreign key to the deployment: a row
// outlives it until the sweep has removed its object. Not shown in any answer, so no data-version trigger.

export class Migration20261127221124_source_uploads extends Migration {

  override name = 'Migration20261127221124_source_uploads';

  override up(): void | Promise<void> {
    this.addSql(`create table "source_upload" ("id" uuid not null, "tenant_id" uuid not null, "deployment_id" uuid not null, "object_path" text not null, "created_at" timestamptz not null, "url_expires_at" timestamptz not null, "expires_at" timestamptz not null, "used_by_revision_id" uuid null, primary key ("id"));`);
    this.addSql(`create index "source_upload_tenant_id_index" on "source_upload" ("tenant_id");`);
    this.addSql(`alter table "source_upload" add constraint "source_upload_object_path_unique" unique ("object_path");`);
    this.addSql(`create index "source_upload_deployment_id_index" on "source_upload" ("deployment_id");`);
    this.addSql(`create index "source_upload_unused_expiry_idx" on "source_upload" ("expires_at") where "used_by_revision_id" is null;`);

    this.addSql(`alter table "source_upload" add constraint "source_upload_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "source_upload" cascade;`);
  }

}
