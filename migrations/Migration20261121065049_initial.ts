import { Migration } from '@mikro-orm/migrations';

export class Migration20261121065049_initial extends Migration {

  override name = 'Migration20261121065049_initial';

  override up(): void | Promise<void> {
    this.addSql(`create table "api_key" ("id" uuid not null, "name" text not null, "prefix" text not null, "key_hash" text not null, "may_read_secrets" boolean not null default false, "created_at" timestamptz not null, "revoked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "api_key" add constraint "api_key_prefix_unique" unique ("prefix");`);
    this.addSql(`alter table "api_key" add constraint "api_key_key_hash_unique" unique ("key_hash");`);

    this.addSql(`create table "tenant" ("id" uuid not null, "name" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);

    this.addSql(`create table "tag_key" ("id" uuid not null, "tenant_id" uuid not null, "key" text not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "tag_key_tenant_id_index" on "tag_key" ("tenant_id");`);
    this.addSql(`alter table "tag_key" add constraint "tag_key_tenant_id_key_unique" unique ("tenant_id", "key");`);

    this.addSql(`create table "tag_value" ("id" uuid not null, "tenant_id" uuid not null, "tag_key_id" uuid not null, "value" text not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "tag_value_tenant_id_index" on "tag_value" ("tenant_id");`);
    this.addSql(`alter table "tag_value" add constraint "tag_value_tag_key_id_value_unique" unique ("tag_key_id", "value");`);

    this.addSql(`create table "integration" ("id" uuid not null, "tenant_id" uuid not null, "kind" text not null, "codehost" text not null, "name" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "integration_tenant_id_index" on "integration" ("tenant_id");`);

    this.addSql(`create table "source_repository" ("id" uuid not null, "tenant_id" uuid not null, "integration_id" uuid not null, "code_host_id" bigint not null, "name" text not null, "owner" text not null, "url" text not null, "default_branch" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "source_repository_tenant_id_index" on "source_repository" ("tenant_id");`);
    this.addSql(`alter table "source_repository" add constraint "source_repository_integration_id_code_host_id_unique" unique ("integration_id", "code_host_id");`);

    this.addSql(`create table "deployment" ("id" uuid not null, "tenant_id" uuid not null, "name" text not null, "status" text not null, "source" text not null, "deployment_type" text not null, "remote_reconciled" boolean not null default false, "image_version" text null, "source_config" jsonb not null, "resource_spec" jsonb null, "source_revision_config" jsonb null, "latest_revision_id" uuid null, "active_revision_id" uuid null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "deployment_tenant_id_index" on "deployment" ("tenant_id");`);
    this.addSql(`create index "deployment_tenant_id_created_at_id_index" on "deployment" ("tenant_id", "created_at", "id");`);

    this.addSql(`create table "secret_reference" ("id" uuid not null, "tenant_id" uuid not null, "deployment_id" uuid not null, "name" text not null, "secret_name" text not null, "secret_key" text not null, "position" int not null, primary key ("id"));`);
    this.addSql(`create index "secret_reference_tenant_id_index" on "secret_reference" ("tenant_id");`);
    this.addSql(`alter table "secret_reference" add constraint "secret_reference_deployment_id_name_unique" unique ("deployment_id", "name");`);

    this.addSql(`create table "secret" ("id" uuid not null, "tenant_id" uuid not null, "deployment_id" uuid not null, "name" text not null, "value_ciphertext" bytea not null, "position" int not null, primary key ("id"));`);
    this.addSql(`create index "secret_tenant_id_index" on "secret" ("tenant_id");`);
    this.addSql(`alter table "secret" add constraint "secret_deployment_id_name_unique" unique ("deployment_id", "name");`);

    this.addSql(`create table "revision" ("id" uuid not null, "tenant_id" uuid not null, "deployment_id" uuid not null, "status" text not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "revision_tenant_id_index" on "revision" ("tenant_id");`);
    this.addSql(`create index "revision_deployment_id_index" on "revision" ("deployment_id");`);

    this.addSql(`create table "deployment_tag_value" ("deployment_id" uuid not null, "tag_value_id" uuid not null, primary key ("deployment_id", "tag_value_id"));`);

    this.addSql(`create table "api_key_tenant" ("api_key_id" uuid not null, "tenant_id" uuid not null, primary key ("api_key_id", "tenant_id"));`);

    this.addSql(`alter table "tag_key" add constraint "tag_key_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);

    this.addSql(`alter table "tag_value" add constraint "tag_value_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "tag_value" add constraint "tag_value_tag_key_id_foreign" foreign key ("tag_key_id") references "tag_key" ("id");`);

    this.addSql(`alter table "integration" add constraint "integration_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "integration" add constraint "integration_kind_check" check ("kind" in ('codehost', 'managed'));`);

    this.addSql(`alter table "source_repository" add constraint "source_repository_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "source_repository" add constraint "source_repository_integration_id_foreign" foreign key ("integration_id") references "integration" ("id");`);

    this.addSql(`alter table "deployment" add constraint "deployment_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "deployment" add constraint "deployment_status_check" check ("status" in ('AWAITING_DATABASE', 'READY', 'UNUSED', 'AWAITING_DELETE', 'UNKNOWN'));`);
    this.addSql(`alter table "deployment" add constraint "deployment_source_check" check ("source" in ('github', 'external_docker', 'internal_docker', 'internal_source'));`);
    this.addSql(`alter table "deployment" add constraint "deployment_deployment_type_check" check ("deployment_type" in ('dev_free', 'dev', 'prod'));`);

    this.addSql(`alter table "secret_reference" add constraint "secret_reference_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "secret_reference" add constraint "secret_reference_deployment_id_foreign" foreign key ("deployment_id") references "deployment" ("id");`);

    this.addSql(`alter table "secret" add constraint "secret_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "secret" add constraint "secret_deployment_id_foreign" foreign key ("deployment_id") references "deployment" ("id");`);

    this.addSql(`alter table "revision" add constraint "revision_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id");`);
    this.addSql(`alter table "revision" add constraint "revision_deployment_id_foreign" foreign key ("deployment_id") references "deployment" ("id");`);
    this.addSql(`alter table "revision" add constraint "revision_status_check" check ("status" in ('CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING', 'AWAITING_DEPLOY', 'DEPLOYING', 'CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED', 'DEPLOYED', 'SKIPPED', 'INTERRUPTED', 'UNKNOWN'));`);

    this.addSql(`alter table "deployment_tag_value" add constraint "deployment_tag_value_deployment_id_foreign" foreign key ("deployment_id") references "deployment" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "deployment_tag_value" add constraint "deployment_tag_value_tag_value_id_foreign" foreign key ("tag_value_id") references "tag_value" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "api_key_tenant" add constraint "api_key_tenant_api_key_id_foreign" foreign key ("api_key_id") references "api_key" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "api_key_tenant" add constraint "api_key_tenant_tenant_id_foreign" foreign key ("tenant_id") references "tenant" ("id") on update cascade on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "api_key_tenant" drop constraint "api_key_tenant_api_key_id_foreign";`);
    this.addSql(`alter table "tag_key" drop constraint "tag_key_tenant_id_foreign";`);
    this.addSql(`alter table "tag_value" drop constraint "tag_value_tenant_id_foreign";`);
    this.addSql(`alter table "integration" drop constraint "integration_tenant_id_foreign";`);
    this.addSql(`alter table "source_repository" drop constraint "source_repository_tenant_id_foreign";`);
    this.addSql(`alter table "deployment" drop constraint "deployment_tenant_id_foreign";`);
    this.addSql(`alter table "secret_reference" drop constraint "secret_reference_tenant_id_foreign";`);
    this.addSql(`alter table "secret" drop constraint "secret_tenant_id_foreign";`);
    this.addSql(`alter table "revision" drop constraint "revision_tenant_id_foreign";`);
    this.addSql(`alter table "api_key_tenant" drop constraint "api_key_tenant_tenant_id_foreign";`);
    this.addSql(`alter table "tag_value" drop constraint "tag_value_tag_key_id_foreign";`);
    this.addSql(`alter table "deployment_tag_value" drop constraint "deployment_tag_value_tag_value_id_foreign";`);
    this.addSql(`alter table "source_repository" drop constraint "source_repository_integration_id_foreign";`);
    this.addSql(`alter table "secret_reference" drop constraint "secret_reference_deployment_id_foreign";`);
    this.addSql(`alter table "secret" drop constraint "secret_deployment_id_foreign";`);
    this.addSql(`alter table "revision" drop constraint "revision_deployment_id_foreign";`);
    this.addSql(`alter table "deployment_tag_value" drop constraint "deployment_tag_value_deployment_id_foreign";`);

    this.addSql(`drop table if exists "api_key" cascade;`);
    this.addSql(`drop table if exists "tenant" cascade;`);
    this.addSql(`drop table if exists "tag_key" cascade;`);
    this.addSql(`drop table if exists "tag_value" cascade;`);
    this.addSql(`drop table if exists "integration" cascade;`);
    this.addSql(`drop table if exists "source_repository" cascade;`);
    this.addSql(`drop table if exists "deployment" cascade;`);
    this.addSql(`drop table if exists "secret_reference" cascade;`);
    this.addSql(`drop table if exists "secret" cascade;`);
    this.addSql(`drop table if exists "revision" cascade;`);
    this.addSql(`drop table if exists "deployment_tag_value" cascade;`);
    this.addSql(`drop table if exists "api_key_tenant" cascade;`);
  }

}
