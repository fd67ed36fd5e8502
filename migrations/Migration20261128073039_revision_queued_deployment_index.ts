import { Migration } from '@mikro-orm/migrations';

export class Migration20261128073039_revision_queued_deployment_index extends Migration {

  override name = 'Migration20261128073039_revision_queued_deployment_index';

  override up(): void | Promise<void> {
    this.addSql(`create index "revision_queued_deployment_idx" on "revision" ("deployment_id") where "status" = 'QUEUED';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "revision_queued_deployment_idx";`);
  }

}
