import { Migration } from '@mikro-orm/migrations';

// The push tokens POST /v2/deployments/{deployment_id}/push-token issues (docs/decisions.md#image-pushes), by
// their SHA-256 only. No foreign key to the deployment: the token server joins it, so a deleted deployment's
// tokens grant nothing. Not shown in any answer, so no data-version trigger.

export class Migration20261128033134_registry_push_tokens extends Migration {

  override name = 'Migration20261128033134_registry_push_tokens';

  override up(): void | Promise<void> {
    this.addSql(`create table "registry_push_token" ("id" uuid not null, "tenant_id" uuid not null, "token_hash" text not null, "deployment_id" uuid not null, "api_key_id" uuid not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "registry_push_token_tenant_id_index" on "registry_push_token" ("tenant_id");`);
    this.addSql(`alter table "registry_push_token" add constraint "registry_push_token_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "registry_push_token_deployment_id_index" on "registry_push_token" ("deployment_id");`);
    this.addSql(`create index "registry_push_token_expires_at_index" on "registry_push_token" ("expires_at");`);

    this.addSql(`alter table "registry_push_token" add constraint "registry_push_token_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "registry_push_token" cascade;`);
  }

}
