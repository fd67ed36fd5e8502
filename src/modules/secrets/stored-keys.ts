// Which keys the stored secrets need, read from the fingerprints their rows record. These read every tenant's
// rows on purpose: they concern the process's key, not a caller's data, and return no value or name.
import type { AppOrm } from '../../db/orm-config.ts';

type Connection = ReturnType<AppOrm['em']['getConnection']>;

export interface StoredKeys {
  /** Distinct fingerprints recorded on secret rows. */
  fingerprints: string[];
  /** Some rows were written before fingerprints were recorded (their key is found by trying). */
  unfingerprinted: boolean;
  /** The schema has the fingerprint column (false while its migration is pending: MIGRATE_ON_START=false). */
  recordsFingerprints: boolean;
}

// A loose index scan: one index probe per distinct fingerprint, however many rows (PostgreSQL has no skip
// scan for DISTINCT), so that /ready can afford it every second.
const DISTINCT_FINGERPRINTS = `
  with recursive fingerprints(fingerprint) as (
    (select key_fingerprint from secret where key_fingerprint is not null order by key_fingerprint limit 1)
    union all
    select (select s.key_fingerprint from secret s where s.key_fingerprint > f.fingerprint order by s.key_fingerprint limit 1)
      from fingerprints f where f.fingerprint is not null
  )
  select array(select fingerprint from fingerprints where fingerprint is not null) as fingerprints,
         exists (select 1 from secret where key_fingerprint is null) as unfingerprinted`;

const UNDEFINED_TABLE = '42P01';
const UNDEFINED_COLUMN = '42703';

/** Also on a schema whose migrations are pending: no secret table yet, or one without fingerprints. */
export async function storedKeys(connection: Connection): Promise<StoredKeys> {
  try {
    const [row] = await connection.execute<Omit<StoredKeys, 'recordsFingerprints'>[]>(DISTINCT_FINGERPRINTS);
    return { fingerprints: row!.fingerprints, unfingerprinted: row!.unfingerprinted, recordsFingerprints: true };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === UNDEFINED_TABLE) return { fingerprints: [], unfingerprinted: false, recordsFingerprints: false };
    if (code !== UNDEFINED_COLUMN) throw error;
    const [row] = await connection.execute<{ any: boolean }[]>('select exists (select 1 from secret) as any');
    return { fingerprints: [], unfingerprinted: row!.any, recordsFingerprints: false };
  }
}

export const hasSecrets = (keys: StoredKeys) => keys.fingerprints.length > 0 || keys.unfingerprinted;

/** Below every uuid: where a walk over the secrets in id order starts (check and rotation read in batches). */
export const BEFORE_EVERY_ID = '00000000-0000-0000-0000-000000000000';

export interface StoredSecretRow {
  id: string;
  deployment_id: string;
  name: string;
  value_ciphertext: Buffer;
  key_fingerprint: string | null;
}

/** A few secrets written before fingerprints were recorded: trying the keys on them tells which one wrote them. */
export async function unfingerprintedSecrets(connection: Connection, stored: StoredKeys, limit: number): Promise<StoredSecretRow[]> {
  return connection.execute<StoredSecretRow[]>(
    `select id, deployment_id, name, value_ciphertext, null as key_fingerprint from secret
      ${stored.recordsFingerprints ? 'where key_fingerprint is null' : ''} order by id limit ?`, [limit]);
}

/** How many secrets each recorded fingerprint (null: none recorded) has. Counts every row: for messages and the CLI. */
export async function secretCountsByFingerprint(connection: Connection, stored: StoredKeys): Promise<Map<string | null, number>> {
  if (!stored.recordsFingerprints && !stored.unfingerprinted) return new Map();
  const rows = await connection.execute<{ key_fingerprint: string | null; count: string }[]>(stored.recordsFingerprints
    ? 'select key_fingerprint, count(*) as count from secret group by key_fingerprint'
    : 'select null as key_fingerprint, count(*) as count from secret');
  return new Map(rows.map((row) => [row.key_fingerprint, Number(row.count)]));
}
