import { Migration } from '@mikro-orm/migrations';

// A create looks its name up within the tenant: without this index that read every deployment of the tenant
// (bench/results/2026-11-27-writes.md).

export class Migration20261127105808_deployment_name_index extends Migration {

  override name = 'Migration20261127105808_deployment_name_index';

  override up(): void | Promise<void> {
    this.addSql(`create index "deployment_tenant_id_name_index" on "deployment" ("tenant_id", "name");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "deployment_tenant_id_name_index";`);
  }

}
