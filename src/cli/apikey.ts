// npm run apikey -- create --tenant <uuid> [--tenant <uuid>...] [--read-secrets] [--write] [--reconcile [--listener <uuid>]] [--name <label>]
// npm run apikey -- revoke <key-prefix-or-id>
// npm run apikey -- list
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { entities } from '../modules/entities.ts';
import { ApiKeySchema } from '../modules/tenancy/api-key.entity.ts';
import { issueApiKey, revokeApiKey } from '../modules/tenancy/api-key.service.ts';
import { runCli, UsageError } from './run-cli.ts';

const USAGE = 'usage: npm run apikey -- create --tenant <uuid> [--tenant <uuid>...] [--read-secrets] [--write] [--reconcile [--listener <uuid>]] [--name <label>] | revoke <key-prefix-or-id> | list';

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: { tenant: { type: 'string', multiple: true }, 'read-secrets': { type: 'boolean' }, write: { type: 'boolean' }, reconcile: { type: 'boolean' }, listener: { type: 'string' }, name: { type: 'string' } },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
}

await runCli(async (args) => {
  const { values, positionals } = parse(args);
  const [command, target, ...extra] = positionals;
  if (!['create', 'revoke', 'list'].includes(command ?? '') || extra.length || (command === 'revoke') !== (target !== undefined)) {
    throw new UsageError(USAGE);
  }
  const config = loadConfig();
  const database = await openDatabase(config, { entities, migrate: config.migrateOnStart });
  const em = database.orm.em.fork();
  try {
    if (command === 'create') {
      const { key, apiKey } = await issueApiKey(em, {
        tenantIds: values.tenant ?? [], name: values.name ?? 'unnamed', mayReadSecrets: values['read-secrets'] ?? false, mayWrite: values.write ?? false,
        mayReconcile: values.reconcile ?? false, listenerId: values.listener ?? null,
      });
      console.log(`Created API key ${apiKey.prefix} (id ${apiKey.id}, may read secrets: ${apiKey.mayReadSecrets ? 'yes' : 'no'}, may write: ${apiKey.mayWrite ? 'yes' : 'no'}, may reconcile: ${apiKey.mayReconcile ? 'yes' : 'no'}${apiKey.listenerId ? `, listener: ${apiKey.listenerId}` : ''}).`);
      console.log('Store it now; it is not shown again:');
      console.log(key);
    } else if (command === 'revoke') {
      const apiKey = await revokeApiKey(em, target!);
      console.log(`Revoked API key ${apiKey.prefix} (id ${apiKey.id}) at ${apiKey.revokedAt!.toISOString()}.`);
    } else {
      const keys = await em.getRepository(ApiKeySchema).listAll();
      for (const k of keys) {
        const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active';
        console.log(`${k.prefix}  ${k.id}  ${k.name}  secrets:${k.mayReadSecrets ? 'yes' : 'no'}  write:${k.mayWrite ? 'yes' : 'no'}  reconcile:${k.mayReconcile ? 'yes' : 'no'}${k.listenerId ? `  listener:${k.listenerId}` : ''}  ${state}  tenants: ${k.tenants.getItems().map((t) => t.id).join(', ')}`);
      }
      if (keys.length === 0) console.log('No API keys.');
    }
  } finally {
    await database.close();
  }
});
