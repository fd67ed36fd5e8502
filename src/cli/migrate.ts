// npm run db:migrate            apply pending migrations (for deployments with MIGRATE_ON_START=false)
// npm run db:migration:create   generate a migration from the difference between entities and snapshot
//                               (`-- name --blank`: an empty one, for what entities do not describe, e.g. triggers)
import { loadConfig } from '../config.ts';
import { migrate, openDatabase } from '../db/database.ts';
import { entities } from '../modules/entities.ts';
import { runCli } from './run-cli.ts';

await runCli(async (args) => {
  const command = args[0] ?? 'up';
  const config = loadConfig();
  // Migrations keep a session of their own: the direct URL when DATABASE_URL goes through a transaction pooler.
  const direct = { ...config, databaseUrl: config.databaseDirectUrl ?? config.databaseUrl, databasePooler: 'none' as const };
  const database = await openDatabase(direct, { entities, migrate: false });
  try {
    if (command === 'up') {
      const applied = await migrate(database.orm);
      console.log(applied.length ? `Applied ${applied.join(', ')}` : 'No pending migrations.');
    } else if (command === 'create') {
      const blank = args.includes('--blank');
      const name = args.slice(1).find((arg) => arg !== '--blank');
      const result = await database.orm.migrator.create(undefined, blank, false, name);
      console.log(result.fileName ? `Created migrations/${result.fileName}` : 'No schema changes: nothing to generate.');
    } else if (command === 'pending') {
      const pending = await database.orm.migrator.getPending();
      console.log(pending.length ? pending.map((m) => m.name).join('\n') : 'No pending migrations.');
    } else {
      throw new Error(`unknown command "${command}" (use up, create [name] [--blank] or pending)`);
    }
  } finally {
    await database.close();
  }
});
