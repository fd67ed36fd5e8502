// The keys a process reads and writes secrets with, and the check that they can read what is stored.
//
// The current key is SECRETS_KEY, or else (embedded mode) the key kept in DATA_DIR/secrets.key. A key is
// generated only for a database that holds no secret: generating one over existing ciphertexts would make
// every one of them unreadable. SECRETS_KEY_PREVIOUS adds a key that only reads, for a rotation.
// A process whose keys cannot read every stored secret does not start: one line says which key the secrets
// need, which key was found, and where it was looked for (docs/operations.md#secrets-key).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseSecretsKey, type Config } from '../../config.ts';
import type { AppOrm } from '../../db/orm-config.ts';
import { keyFingerprint } from './key-fingerprint.ts';
import { SecretCipher } from './secret-cipher.ts';
import { hasSecrets, oneUnfingerprintedSecret, secretCountsByFingerprint, storedKeys, type StoredKeys } from './stored-keys.ts';

export const SECRETS_KEY_FILE = 'secrets.key';

/** The configured keys cannot read the stored secrets, or the key file is unsafe: one line for the operator. */
export class SecretsKeyError extends Error {
  override name = 'SecretsKeyError';
}

type Connection = ReturnType<AppOrm['em']['getConnection']>;

export interface CurrentKey {
  key: Buffer;
  /** Where it came from, as the operator would name it. */
  source: string;
}

export const secretsKeyFile = (config: Pick<Config, 'dataDir'>) => path.join(config.dataDir, SECRETS_KEY_FILE);

async function readKeyFile(file: string): Promise<Buffer> {
  const { mode } = await fs.stat(file);
  if ((mode & 0o077) !== 0) {
    throw new SecretsKeyError(`${file} is readable by other users (mode ${(mode & 0o777).toString(8)}): run \`chmod 600 ${file}\``);
  }
  return parseSecretsKey((await fs.readFile(file, 'utf8')).trim(), file);
}

/** A new key in the file, unless another process wrote one first (then that one). */
async function generateKeyFile(file: string, dataDir: string): Promise<Buffer> {
  await fs.mkdir(dataDir, { recursive: true, mode: 0o711 });
  const key = randomBytes(32);
  try {
    // `wx`: never overwrite a key that appeared meanwhile; losing it would make every stored secret unreadable.
    await fs.writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readKeyFile(file);
    throw error;
  }
}

/** "3 under key a1…, 2 under key b2…" (`noun`: "3 secrets under key a1…"). */
function describeStored(counts: Map<string | null, number>, fingerprints: readonly string[], noun = ''): string {
  return fingerprints.map((fingerprint) => `${counts.get(fingerprint) ?? 0}${noun} under key ${fingerprint}`).join(', ');
}

/** SECRETS_KEY, or else the key file; undefined when there is neither (nothing is generated here). */
export async function configuredKey(config: Config): Promise<CurrentKey | undefined> {
  const file = secretsKeyFile(config);
  if (config.secretsKey) return { key: config.secretsKey, source: 'from the environment' };
  if (existsSync(file)) return { key: await readKeyFile(file), source: `the key in ${file}` };
  return undefined;
}

async function currentKey(config: Config, stored: StoredKeys, connection: Connection, mayGenerate: boolean): Promise<CurrentKey> {
  const file = secretsKeyFile(config);
  const configured = await configuredKey(config);
  if (configured) return configured;
  if (!mayGenerate) throw new SecretsKeyError(`SECRETS_KEY is not set and ${file} does not exist: set SECRETS_KEY`);
  if (hasSecrets(stored)) {
    const counts = await secretCountsByFingerprint(connection, stored);
    const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
    const under = stored.fingerprints.length ? ` (${describeStored(counts, stored.fingerprints)})` : '';
    throw new SecretsKeyError(`SECRETS_KEY is not set and ${file} does not exist, but the database holds ${total} encrypted secrets${under}: `
      + 'set SECRETS_KEY to the key that wrote them (a key is generated only for a database without secrets)');
  }
  return { key: await generateKeyFile(file, config.dataDir), source: `the key generated in ${file}` };
}

/**
 * The cipher for this process, once its keys are known to read every stored secret. Throws SecretsKeyError
 * (one line) otherwise. `connection` reads the fingerprints the secret rows record. `mayGenerate: false`
 * (the secrets CLI) never creates a key file.
 */
export async function openSecretsKeys(config: Config, connection: Connection, { mayGenerate = true } = {}): Promise<SecretCipher> {
  const stored = await storedKeys(connection);
  const current = await currentKey(config, stored, connection, mayGenerate);
  const cipher = new SecretCipher(current.key, config.secretsKeyPrevious ? [config.secretsKeyPrevious] : []);
  const problem = await keysCannotRead(cipher, connection, stored);
  if (!problem) return cipher;
  const file = secretsKeyFile(config);
  const configured = `SECRETS_KEY (${current.source}) is key ${cipher.fingerprint}`
    + (cipher.fingerprints.length > 1 ? ` and SECRETS_KEY_PREVIOUS is key ${cipher.fingerprints[1]}` : '');
  const fileKey = existsSync(file) && config.secretsKey ? keyFingerprint(await readKeyFile(file)) : undefined;
  const hint = fileKey && problem.missing.includes(fileKey) ? ` (the key in ${file} is key ${fileKey}: unset SECRETS_KEY to use it)` : '';
  throw new SecretsKeyError(`The configured secrets key cannot read the stored secrets: ${problem.description}, but ${configured}${hint}; `
    + 'set SECRETS_KEY to the key that wrote them, or during a rotation the new key as SECRETS_KEY and the old one as SECRETS_KEY_PREVIOUS');
}

export interface UnreadableKeys {
  /** Fingerprints recorded on secrets that no configured key has. */
  missing: string[];
  /** For an operator: how many secrets under which keys. */
  description: string;
}

/**
 * Whether the cipher's keys read every stored secret: every recorded fingerprint is one of its keys, and a
 * secret written before fingerprints were recorded (all such rows came from one key) opens with one of them.
 * Undefined when they do. Start-up refuses on an answer; /ready reports one as not ready.
 */
export async function keysCannotRead(cipher: SecretCipher, connection: Connection, stored?: StoredKeys): Promise<UnreadableKeys | undefined> {
  stored ??= await storedKeys(connection);
  const missing = stored.fingerprints.filter((fingerprint) => !cipher.reads(fingerprint));
  if (missing.length > 0) {
    const counts = await secretCountsByFingerprint(connection, stored);
    return { missing, description: `the database holds ${describeStored(counts, missing, ' secrets')}` };
  }
  if (!stored.unfingerprinted) return undefined;
  const sample = await oneUnfingerprintedSecret(connection, stored);
  if (!sample || cipher.keysThatOpen(sample.value_ciphertext, { deploymentId: sample.deployment_id, name: sample.name }).length > 0) return undefined;
  const count = (await secretCountsByFingerprint(connection, stored)).get(null) ?? 0;
  return { missing: [], description: `${count} secrets written before key fingerprints were recorded do not open with it` };
}
