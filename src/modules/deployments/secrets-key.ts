// Where the AES key for secret values comes from: SECRETS_KEY, or (embedded mode only) a key generated on
// first start and kept beside the embedded data, readable by its owner only.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, parseSecretsKey, type Config } from '../../config.ts';

export const SECRETS_KEY_FILE = 'secrets.key';

export async function resolveSecretsKey(config: Config): Promise<Buffer> {
  const file = path.join(config.dataDir, SECRETS_KEY_FILE);
  if (config.secretsKey) {
    // In embedded mode a generated key may already have encrypted the stored secrets: never switch silently.
    if (!config.databaseUrl && existsSync(file) && !parseSecretsKey((await fs.readFile(file, 'utf8')).trim(), file).equals(config.secretsKey)) {
      throw new ConfigError('SECRETS_KEY', `differs from the key in ${file} that encrypted the embedded database's secrets`);
    }
    return config.secretsKey;
  }
  if (existsSync(file)) return parseSecretsKey((await fs.readFile(file, 'utf8')).trim(), file);
  await fs.mkdir(config.dataDir, { recursive: true, mode: 0o711 });
  const key = randomBytes(32);
  // `wx`: never overwrite a key that appeared meanwhile; losing it would make every stored secret unreadable.
  await fs.writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
