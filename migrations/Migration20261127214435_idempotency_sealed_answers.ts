import { Migration } from '@mikro-orm/migrations';

// Idempotency keys become each API key's, and stored answers are sealed (docs/decisions.md#idempotency-keys).
// The records kept so far are dropped: their answers hold secret values in clear, and whose API key made them
// is not known. TRUNCATE rather than DELETE: it gives the table new files, so the plaintext leaves the disk at
// commit instead of waiting for a vacuum. A retry of a write made before the upgrade runs again (at worst a 409
// for a name already taken, or a PATCH applied twice).

export class Migration20261127214435_idempotency_sealed_answers extends Migration {

  override name = 'Migration20261127214435_idempotency_sealed_answers';

  override up(): void | Promise<void> {
    this.addSql(`truncate table "idempotency_record";`);
    this.addSql(`alter table "idempotency_record" drop constraint "idempotency_record_tenant_id_key_unique";`);
    this.addSql(`alter table "idempotency_record" drop column "answer";`);
    this.addSql(`alter table "idempotency_record" add "api_key_id" uuid not null, add "answer_sealed" bytea null, add "answer_key_fingerprint" text null;`);
    this.addSql(`alter table "idempotency_record" add constraint "idempotency_record_api_key_id_foreign" foreign key ("api_key_id") references "api_key" ("id") on delete cascade;`);
    this.addSql(`alter table "idempotency_record" add constraint "idempotency_record_tenant_id_api_key_id_key_unique" unique ("tenant_id", "api_key_id", "key");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`truncate table "idempotency_record";`);
    this.addSql(`alter table "idempotency_record" drop constraint "idempotency_record_api_key_id_foreign";`);

    this.addSql(`alter table "idempotency_record" drop constraint "idempotency_record_tenant_id_api_key_id_key_unique";`);
    this.addSql(`alter table "idempotency_record" drop column "api_key_id", drop column "answer_sealed", drop column "answer_key_fingerprint";`);
    this.addSql(`alter table "idempotency_record" add "answer" jsonb null;`);
    this.addSql(`alter table "idempotency_record" add constraint "idempotency_record_tenant_id_key_unique" unique ("tenant_id", "key");`);
  }

}
