import { Migration } from '@mikro-orm/migrations';

// A create's name check in one round trip (issue 52, few round trips): the tenant's and name's advisory lock,
// then whether the tenant has a deployment of that name. VOLATILE, so that its query after the lock runs in a
// snapshot of its own, taken once the lock is held: a create that committed the name while this one waited is
// seen (in one plain statement, the snapshot would predate the lock). Concurrent creates of one name queue on
// the lock until their transactions end, so exactly one finds the name free (writes/deployment-writer.ts).
// Names are not unique in the table (imports may hold duplicates), so no unique index can do this.

export class Migration20261128020500_deployment_name_check extends Migration {

  override name = 'Migration20261128020500_deployment_name_check';

  override up(): void | Promise<void> {
    this.addSql(`create function deployment_name_taken(tenant uuid, wanted text) returns boolean language plpgsql volatile as $$
begin
  perform pg_advisory_xact_lock(hashtextextended('deployment-name/' || tenant || '/' || wanted, 0));
  return exists (select 1 from deployment d where d.tenant_id = tenant and d.name = wanted);
end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop function deployment_name_taken(uuid, text);`);
  }

}
