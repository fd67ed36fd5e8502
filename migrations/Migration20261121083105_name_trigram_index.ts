import { Migration } from '@mikro-orm/migrations';

export class Migration20261121083105_name_trigram_index extends Migration {

  override name = 'Migration20261121083105_name_trigram_index';

  override up(): void | Promise<void> {
    // pg_trgm ships with PostgreSQL (contrib) and is a trusted extension: the database owner may create it.
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create index "deployment_name_trgm_idx" on "deployment" using gin ("name" gin_trgm_ops);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "deployment_name_trgm_idx";`);
  }

}
