import { Migration } from '@mikro-orm/migrations';

// A revision transition's time (the last field of `revision_transition`, revisionUpdated's `at`) is the
// revision's updated_at in whole milliseconds, cut as every read of updated_at cuts it: rounded, as the
// lifecycle migration did it, it was a millisecond after the revision's `updatedAt` half the time, so a client
// comparing the two took the revision it had read for an older one than the event's.

const notify = (milliseconds: string) => `create or replace function revision_transition_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('revision_transition', concat_ws(' ', new.tenant_id, new.deployment_id, new.id,
    case when tg_op = 'INSERT' then '-' else old.status end, new.status,
    ${milliseconds}));
  return null;
end $$;`;

export class Migration20261127131500_revision_transition_time extends Migration {

  override name = 'Migration20261127131500_revision_transition_time';

  override up(): void | Promise<void> {
    this.addSql(notify('floor(extract(epoch from new.updated_at) * 1000)::bigint'));
  }

  override down(): void | Promise<void> {
    this.addSql(notify('(extract(epoch from new.updated_at) * 1000)::bigint'));
  }

}
