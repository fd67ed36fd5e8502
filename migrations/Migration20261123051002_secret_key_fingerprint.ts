import { Migration } from '@mikro-orm/migrations';

export class Migration20261123051002_secret_key_fingerprint extends Migration {

  override name = 'Migration20261123051002_secret_key_fingerprint';

  override up(): void | Promise<void> {
    this.addSql(`alter table "secret" add "key_fingerprint" text null;`);
    this.addSql(`create index "secret_key_fingerprint_index" on "secret" ("key_fingerprint");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "secret_key_fingerprint_index";`);
    this.addSql(`alter table "secret" drop column "key_fingerprint";`);
  }

}
