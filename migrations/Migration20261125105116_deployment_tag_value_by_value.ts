import { Migration } from '@mikro-orm/migrations';

export class Migration20261125105116_deployment_tag_value_by_value extends Migration {

  override name = 'Migration20261125105116_deployment_tag_value_by_value';

  override up(): void | Promise<void> {
    this.addSql(`create index "deployment_tag_value_tag_value_id_deployment_id_index" on "deployment_tag_value" ("tag_value_id", "deployment_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "deployment_tag_value_tag_value_id_deployment_id_index";`);
  }

}
