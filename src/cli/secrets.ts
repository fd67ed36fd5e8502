// npm run secrets -- check                     how many stored secrets each configured key opens (no value shown)
// npm run secrets -- rotate [--batch-size N]   re-encrypt every stored secret under SECRETS_KEY
// Keys: SECRETS_KEY (or, embedded, DATA_DIR/secrets.key) and SECRETS_KEY_PREVIOUS. See docs/operations.md#secrets-key.
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { entities } from '../modules/entities.ts';
import { IdempotencyStore } from '../modules/idempotency/idempotency-store.ts';
import { checkSecrets } from '../modules/secrets/key-check.ts';
import { rotateSecrets, type UnreadableSecret } from '../modules/secrets/key-rotation.ts';
import { SecretCipher } from '../modules/secrets/secret-cipher.ts';
import { configuredKey, openSecretsKeys, secretsKeyFile, SecretsKeyError } from '../modules/secrets/secrets-key.ts';
import { secretCountsByFingerprint, storedKeys, type StoredKeys } from '../modules/secrets/stored-keys.ts';
import { MARKED_UNREADABLE } from '../modules/secrets/key-fingerprint.ts';
import { runCli, UsageError } from './run-cli.ts';

const USAGE = 'usage: npm run secrets -- check | rotate [--batch-size N]   (N from 1 to 10000, default 500)';
const PROGRESS_INTERVAL_MS = 1000;
const SHOWN_UNREADABLE = 20;

function parseCommand(args: string[]): { command: 'check' | 'rotate'; batchSize: number } {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { 'batch-size': { type: 'string' } } });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  const [command, ...extra] = parsed.positionals;
  if ((command !== 'check' && command !== 'rotate') || extra.length > 0) throw new UsageError(USAGE);
  const raw = parsed.values['batch-size'] ?? '500';
  const batchSize = Number(raw);
  if (!/^\d+$/.test(raw) || batchSize < 1 || batchSize > 10_000 || command !== 'rotate' && parsed.values['batch-size'] !== undefined) {
    throw new UsageError(USAGE);
  }
  return { command, batchSize };
}

/**
 * Secrets recorded under a key that is not configured are counted per key (the remedy is that key); the
 * others (damaged, or recorded under no key) are listed by deployment and name, a few at most.
 */
function describeUnreadable(unreadable: UnreadableSecret[], cipher: SecretCipher | undefined): string {
  const missingKey = (s: UnreadableSecret) => s.keyFingerprint !== null && s.keyFingerprint !== MARKED_UNREADABLE && !cipher?.reads(s.keyFingerprint);
  const perMissingKey = new Map<string, number>();
  for (const s of unreadable.filter(missingKey)) perMissingKey.set(s.keyFingerprint!, (perMissingKey.get(s.keyFingerprint!) ?? 0) + 1);
  const others = unreadable.filter((s) => !missingKey(s));
  const why = (s: UnreadableSecret) => {
    if (s.keyFingerprint === MARKED_UNREADABLE) return 'damaged (marked unreadable by a rotation)';
    if (s.keyFingerprint === null) return 'written before key fingerprints were recorded, and no configured key opens it';
    return `damaged (it does not open with key ${s.keyFingerprint}, which wrote it)`;
  };
  return [
    ...[...perMissingKey].map(([key, n]) => `  ${n} written under key ${key}, which is not configured`),
    ...others.slice(0, SHOWN_UNREADABLE).map((s) => `  deployment ${s.deploymentId}, secret "${s.name}": ${why(s)}`),
    ...(others.length > SHOWN_UNREADABLE ? [`  ... and ${others.length - SHOWN_UNREADABLE} more`] : []),
  ].join('\n');
}

const REPAIR = 'Re-import their values (`npm run import`: the import rewrites them under SECRETS_KEY) or delete them.';

/** Both commands read the fingerprints; before their migration is applied there are none to read. */
async function expectFingerprints(database: Database): Promise<StoredKeys> {
  const stored = await storedKeys(database.orm.em.getConnection());
  if (!stored.recordsFingerprints) {
    throw new SecretsKeyError('the database has migrations pending (its secrets have no key fingerprints yet): run `npm run db:migrate` first');
  }
  return stored;
}

function describeRecorded(recorded: Map<string | null, number>): string {
  const label = (key: string | null) => (key === null ? 'recorded under key none (written before fingerprints)'
    : key === MARKED_UNREADABLE ? 'marked unreadable' : `recorded under key ${key}`);
  return [...recorded].map(([key, n]) => `${n} ${label(key)}`).join(', ') || 'none';
}

async function check(config: Config, database: Database): Promise<void> {
  const em = database.orm.em;
  const stored = await expectFingerprints(database);
  const current = await configuredKey(config);
  const cipher = current && new SecretCipher(current.key, config.secretsKeyPrevious ? [config.secretsKeyPrevious] : []);
  const result = await checkSecrets(em, cipher);
  const lines = [`${result.total} secrets stored (${describeRecorded(await secretCountsByFingerprint(em.getConnection(), stored))}).`];
  if (!current) {
    lines.push(`  no key configured: SECRETS_KEY is not set and ${secretsKeyFile(config)} does not exist`);
  } else {
    const [currentFingerprint, previousFingerprint] = cipher!.fingerprints;
    lines.push(`  SECRETS_KEY (${current.source}): key ${currentFingerprint} opens ${result.opens.get(currentFingerprint!)}`);
    if (previousFingerprint) lines.push(`  SECRETS_KEY_PREVIOUS: key ${previousFingerprint} opens ${result.opens.get(previousFingerprint)}`);
  }
  console.log(lines.join('\n'));
  if (result.unreadable.length > 0) {
    throw new SecretsKeyError(`${result.unreadable.length} of ${result.total} secrets open with no configured key:\n${describeUnreadable(result.unreadable, cipher)}`);
  }
  console.log(result.notUnderCurrent > 0
    ? `Every secret can be read; ${result.notUnderCurrent} are not under SECRETS_KEY yet: run \`npm run secrets -- rotate\`.`
    : `Every secret can be read, all under SECRETS_KEY${cipher && cipher.fingerprints.length > 1 ? ': SECRETS_KEY_PREVIOUS is no longer needed' : ''}.`);
}

async function rotate(config: Config, database: Database, batchSize: number): Promise<void> {
  await expectFingerprints(database);
  const cipher = await openSecretsKeys(config, database.orm.em.getConnection(), { mayGenerate: false });
  let shownAt = 0;
  const result = await rotateSecrets(database.orm.em, cipher, {
    batchSize,
    onBatch: ({ rotated, total }) => {
      if (Date.now() - shownAt < PROGRESS_INTERVAL_MS) return;
      shownAt = Date.now();
      console.log(`  ${rotated} of ${total} rotated (${total ? Math.floor((100 * rotated) / total) : 100}%)`);
    },
  });
  // The answers kept for Idempotency-Key retries may show secret values too, and are sealed under the same key.
  const answers = await new IdempotencyStore(cipher).resealAnswers(database.orm.em.fork(), batchSize);
  console.log(`Re-sealed ${answers.resealed} stored answers of idempotent writes under key ${cipher.fingerprint}`
    + `${answers.dropped ? `; ${answers.dropped} no configured key opens (a retry under their keys hears the answer was lost)` : ''}.`);
  console.log(`Rotated ${result.rotated} secrets to key ${cipher.fingerprint} (SECRETS_KEY); ${result.alreadyCurrent} were already under it. `
    + 'Every readable secret is now under SECRETS_KEY: SECRETS_KEY_PREVIOUS is no longer needed.');
  if (result.unreadableTotal > 0) {
    const found = result.markedUnreadable.length ? `, ${result.markedUnreadable.length} found by this run:\n${describeUnreadable(result.markedUnreadable, cipher)}` : '';
    throw new SecretsKeyError(`${result.unreadableTotal} secrets are damaged: no key opens them, so they are marked unreadable and served as null${found}\n${REPAIR}`);
  }
}

await runCli(async (args) => {
  const { command, batchSize } = parseCommand(args);
  const config = loadConfig();
  // `check` only reads: it leaves pending migrations to `npm run db:migrate` (and says so).
  const database = await openDatabase(config, { entities, migrate: command === 'rotate' && config.migrateOnStart });
  try {
    if (command === 'check') await check(config, database);
    else await rotate(config, database, batchSize);
  } finally {
    await database.close();
  }
});
