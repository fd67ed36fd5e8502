import { Migration } from '@mikro-orm/migrations';

// Runtime log lines (docs/decisions.md#runtime-logs): a third phase of a revision's log, the running service's own
// lines, appended once the revision is DEPLOYED. Their notifications are sent by the append itself (pg_notify).

export class Migration20261127221410_runtime_logs extends Migration {

  override name = 'Migration20261127221410_runtime_logs';

  override up(): void | Promise<void> {
    this.addSql(`alter table "revision_log_line" drop constraint "revision_log_line_phase_check";`);
    this.addSql(`alter table "revision_log_line" add constraint "revision_log_line_phase_check" check ("phase" in ('build', 'deploy', 'runtime'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "revision_log_line" drop constraint "revision_log_line_phase_check";`);
    this.addSql(`alter table "revision_log_line" add constraint "revision_log_line_phase_check" check ("phase" in ('build', 'deploy'));`);
  }

}
