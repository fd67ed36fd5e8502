import { Migration } from '@mikro-orm/migrations';

// A record now holds an answer from its first commit: the write's transaction stores it, and a transaction-level
// advisory lock stands for a request in progress (docs/decisions.md#idempotency-keys). Records of requests that
// were in progress, or whose answer was never stored, are removed first: a retry under such a key runs again, as
// one whose request died before committing does now.

export class Migration20261128001810_idempotency_answers_in_the_write extends Migration {

  override name = 'Migration20261128001810_idempotency_answers_in_the_write';

  override up(): void | Promise<void> {
    this.addSql(`delete from "idempotency_record" where "answer_sealed" is null or "answer_key_fingerprint" is null;`);
    this.addSql(`alter table "idempotency_record" drop column "claimed_at", drop column "committed";`);
    this.addSql(`alter table "idempotency_record" alter column "answer_key_fingerprint" set not null;`);
    this.addSql(`alter table "idempotency_record" alter column "answer_sealed" set not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "idempotency_record" add "claimed_at" timestamptz(6) not null default now(), add "committed" boolean not null default false;`);
    this.addSql(`alter table "idempotency_record" alter column "answer_sealed" drop not null;`);
    this.addSql(`alter table "idempotency_record" alter column "answer_key_fingerprint" drop not null;`);
  }

}
