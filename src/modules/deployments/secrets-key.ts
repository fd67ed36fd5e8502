// Where the AES key for secret values comes from: SECRETS_KEY, or (embedded mode only) a key generated on
// first start and kept beside the embedded data, readable by its owner only.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, parseSecretsKey, type Config } from '../../config.ts';

export const SECRETS_KEY_FILE = 'secrets.key';

export async function resolveSecretsKey(config: Config): Promise<Buffer> {
  if (config.secretsKey) return config.secretsKey;
  if (config.databaseUrl) throw new ConfigError('SECRETS_KEY', 'is required when DATABASE_URL is set');
  const file = path.join(config.dataDir, SECRETS_KEY_FILE);
  if (existsSync(file)) return parseSecretsKey((await fs.readFile(file, 'utf8')).trim(), file);
  await fs.mkdir(config.dataDir, { recursive: true, mode: 0o711 });
  const key = randomBytes(32);
  // `wx`: never overwrite a key that appeared meanwhile; losing it would make every stored secret unreadable.
  await fs.writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
